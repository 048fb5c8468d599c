import { existsSync } from 'node:fs';
import { errorText } from '../vocabulary/text';

/**
 * The gate every write of one attached session passes. Storing a session
 * is a record kept beside the work, never a reason to stop it: a write
 * that fails is told (once per kind of write) and the session goes on in
 * memory. Nothing is written once the attachment closed, nor once the
 * session's folder is gone (a client deleted the session while a prompt
 * was winding down, `crow sessions delete`, or a person's `rm`): the
 * folder is never made again behind whoever removed it.
 */
export class SessionWrites {
  private closed = false;
  private gone = false;
  /** The kinds of write that failed and were told. */
  private readonly told = new Set<string>();

  constructor(
    private readonly folder: string,
    private readonly sessionId: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** Whether writes still reach the folder. */
  get open(): boolean {
    return !this.closed && !this.gone;
  }

  /** Runs `write` unless writing stopped; a failure is told, never thrown. `what` names the write in the warning. */
  run(what: string, write: () => void): void {
    if (!this.open) return;
    try {
      write();
    } catch (err) {
      this.failed(what, err);
    }
  }

  /** No write from now on: the attachment is closed (a prompt still winding down writes nothing more). */
  close(): void {
    this.closed = true;
  }

  private failed(what: string, err: unknown): void {
    if (!existsSync(this.folder)) {
      this.gone = true;
      this.warn(`Session ${this.sessionId} was deleted while it was open (its folder ${this.folder} is gone): nothing more of it is stored.`);
      return;
    }
    if (this.told.has(what)) return;
    this.told.add(what);
    this.warn(`Could not store the ${what} of session ${this.sessionId} in ${this.folder}: ${errorText(err)}. The session goes on; what was not stored is lost when it closes.`);
  }
}
