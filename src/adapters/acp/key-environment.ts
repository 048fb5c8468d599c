/**
 * The environment `crow acp` gives its sessions: the one it was started
 * with, plus the keys `crow login` stored for variables it leaves unset.
 * The client may run `crow login` (its terminal auth method) while this
 * server runs, so the stored keys are read again whenever the record file
 * changed, into the same object every session holds: a session opened
 * before the sign-in uses the key from its next prompt on, and its
 * redactor learns the key before anything of that prompt is written.
 */
import { lstatOrMissing } from '../../config/private-files';
import { LoginKeys, storedKeysFor } from '../../config/login-keys';

export class KeyEnvironment {
  /** The environment every session reads; changed in place by refresh(). */
  readonly env: NodeJS.ProcessEnv;
  private added = new Set<string>();
  private seen: string | undefined;

  constructor(
    private readonly base: NodeJS.ProcessEnv,
    private readonly store: LoginKeys,
    private readonly tell: {
      /** A stored key that could not be read (never the key). */
      problem(message: string): void;
      /** Keys newly in the environment, for the redactors of sessions already open. */
      learned(values: string[]): void;
    },
  ) {
    this.env = { ...base };
  }

  /**
   * For `initialize`, which must answer before anything slow loads: the
   * environment with every key the record names counted as there, without
   * reaching the keychain (a key that turns out unreadable is reported at
   * the first session request, where refresh() reads it).
   */
  presumed(): NodeJS.ProcessEnv {
    let recorded: string[] = [];
    try {
      recorded = this.store.any() ? this.store.list().map((key) => key.variable) : [];
    } catch {
      // An unusable record presumes nothing; refresh() reports it.
    }
    const presumed: NodeJS.ProcessEnv = { ...this.env };
    for (const variable of recorded) presumed[variable] ||= 'stored by crow login';
    return presumed;
  }

  /** Reads the stored keys again when the record changed since the last time (one lstat otherwise). */
  refresh(): void {
    const stats = lstatOrMissing(this.store.file);
    const seen = stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : 'none';
    if (seen === this.seen) return;
    this.seen = seen;
    const { keys, problems } = storedKeysFor(this.base, this.store);
    for (const message of problems) this.tell.problem(message);
    for (const variable of this.added) {
      if (variable in keys) continue;
      if (variable in this.base) this.env[variable] = this.base[variable];
      else delete this.env[variable];
    }
    const learned = Object.entries(keys)
      .filter(([variable, key]) => this.env[variable] !== key)
      .map(([, key]) => key);
    Object.assign(this.env, keys);
    this.added = new Set(Object.keys(keys));
    if (learned.length > 0) this.tell.learned(learned);
  }
}
