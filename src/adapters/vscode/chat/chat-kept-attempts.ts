/**
 * A finished background run of attempts (the chat's, or the CLI's `crow
 * run --background --attempts`) opened in the chat: what it kept
 * (src/attempts/kept-attempts.ts) read back as the attempts card shows a
 * run (chat-attempts.ts), and attempt N picked from it: its patch read
 * again (the files git reads in it, never those attempts.json claims), the
 * run claimed as applied once, and applied into the folder through the
 * chat's session by apply-attempt.ts, as the CLI's `crow sessions apply`
 * does. Plain Node, like the rest of the controller.
 */
import { AttemptsError, AttemptTrees, type PatchTarget } from '../../../attempts/attempt-trees';
import { claimApplied, keptApplied, keptChanges, type KeptAttempts, keptRanking, MAX_KEPT_PATCH_BYTES, patchFileName, readKept, releaseApplied } from '../../../attempts/kept-attempts';
import type { AttemptChanges } from '../../../attempts/attempt-trees';
import type { RankedAttempts } from '../../../attempts/ranking-table';
import { backgroundState, readRunFile } from '../../../host/background-records';
import { t } from '../l10n';
import type { ChatHost } from './chat-session';

/** Where a kept run's attempts are picked from. */
export interface KeptSource {
  data: string;
  id: string;
  kept: KeptAttempts;
  target: PatchTarget;
}

export interface KeptRun {
  prompt: string;
  /** Each attempt with its kept patch (empty when it does not read: Apply then says why). */
  result: RankedAttempts;
  source: KeptSource;
  /** The attempt applied already, if one was (0: one was, which is not known). */
  applied?: number;
}

/** Background run `id` of the chat's folder, as it kept its attempts; an Error saying why not. */
export async function openKeptRun(host: ChatHost, id: string): Promise<KeptRun> {
  const data = host.dataHome;
  const state = backgroundState(data, id);
  if (!state || state.record.cwd !== host.root) throw new Error(t('That background run is gone from the list: it was deleted, or is not of this folder.'));
  const kept = readKept(data, id);
  if (kept === undefined) throw new Error(t('That run kept no attempts to pick from.'));
  if ('problem' in kept) throw new Error(t`What the background run kept does not read (${kept.problem}): its attempts cannot be picked.`);
  let target: PatchTarget;
  try {
    target = await AttemptTrees.target(host.root, await host.env());
  } catch (err) {
    throw err instanceof AttemptsError ? new Error(err.message) : err;
  }
  const ranked = keptRanking(kept);
  const attempts = await Promise.all(ranked.attempts.map(async (attempt) => ({ ...attempt, changes: await shownChanges(data, id, kept, attempt.n, target, attempt.changes.files) })));
  const applied = keptApplied(data, id);
  return { prompt: state.record.prompt, result: { ...ranked, attempts }, source: { data, id, kept, target }, ...(applied ? { applied: applied.n } : {}) };
}

/**
 * Attempt `n` of a kept run, to apply: its changes read again, and the
 * run claimed as applied (once; an Error when it was). `release` gives
 * the claim back when the apply did not happen.
 */
export async function pickKept(source: KeptSource, n: number): Promise<{ changes: AttemptChanges; release: () => void }> {
  const changes = await keptChanges(source.data, source.id, source.kept, n, source.target);
  if (!claimApplied(source.data, source.id, n)) throw new Error(t('An attempt of that background run was already applied: Undo takes it back; a run is applied once.'));
  return { changes, release: () => releaseApplied(source.data, source.id) };
}

/** What the card shows of attempt `n`: its kept patch and the files git reads in it; the run's own account when the patch does not read. */
async function shownChanges(data: string, id: string, kept: KeptAttempts, n: number, target: PatchTarget, files: AttemptChanges['files']): Promise<AttemptChanges> {
  if (kept.attempts.find((attempt) => attempt.n === n)?.patch !== 'kept') return { patch: '', files };
  const read = readRunFile(data, id, patchFileName(n), MAX_KEPT_PATCH_BYTES);
  if (read.problem !== undefined) return { patch: '', files };
  // A patch git cannot read is shown without its diff: Apply reads it again and says why it refuses it.
  const readFiles = await target.patchFiles(read.text).catch(() => undefined);
  return readFiles === undefined ? { patch: '', files } : { patch: read.text, files: readFiles };
}
