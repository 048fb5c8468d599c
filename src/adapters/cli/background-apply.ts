/**
 * `crow sessions apply ID N`: attempt N of a finished background run of
 * attempts (crow run --background --attempts, or the chat's), picked
 * after the run ended, from what it kept (src/attempts/kept-attempts.ts).
 * It is applied as `crow run --attempts` applies a pick: a prompt of the
 * run's own session in its folder (apply-attempt.ts: the path checks,
 * git apply all or nothing, the journal), so `crow undo` takes it back.
 * Refused, saying what to do: a run still running, one of another folder,
 * one that kept nothing, an attempt that changed nothing, a second apply,
 * and changes that no longer fit the files.
 */
import { applyAttemptProgram, applyAttemptText } from '../../attempts/apply-attempt';
import { AttemptsError, type PatchTarget, AttemptTrees } from '../../attempts/attempt-trees';
import { claimApplied, keptApplied, keptChanges, type KeptAttempts, pickable, readKept, releaseApplied } from '../../attempts/kept-attempts';
import { backgroundState } from '../../host/background-records';
import type { HostSession } from '../../host/host-session';
import type { SessionStore } from '../../session/session-store';
import { errorText } from '../../vocabulary/text';
import { type CliIO, UsageError } from './cli-io';
import { openRunSession } from './run-setup';

/** Applies attempt `n` of background run `id` in the folder `root`; the exit code (2 for a refusal, 1 when it did not apply). */
export async function applyKept(store: SessionStore, data: string, id: string, n: number, root: string, io: CliIO): Promise<number> {
  const state = backgroundState(data, id);
  if (!state) throw new UsageError(`Session ${id} is not a background run: only attempts run with crow run --background --attempts N are picked this way.`);
  if (state.state === 'running') throw new UsageError(`Run ${id} is still running: pick an attempt once it ends (crow sessions show ${id} says when).`);
  if (state.record.cwd !== root) throw new UsageError(`Run ${id} ran in ${state.record.cwd}: apply it there (cd there, or pass --cwd ${state.record.cwd}).`);
  const kept = keptOf(data, id);
  const applied = keptApplied(data, id);
  if (applied) throw new UsageError(`An attempt of run ${id} was already applied${applied.n > 0 ? ` (attempt ${applied.n})` : ''}: crow undo takes it back; a run is applied once.`);
  let target: PatchTarget;
  try {
    target = await AttemptTrees.target(root, io.env);
  } catch (err) {
    throw err instanceof AttemptsError ? new UsageError(err.message) : err;
  }
  const changes = await keptChanges(data, id, kept, n, target).catch((err: unknown) => {
    throw new UsageError(`${errorText(err)}${pickable(kept).length > 0 ? ` Attempts with changes: ${pickable(kept).join(', ')}.` : ''}`);
  });
  if (!claimApplied(data, id, n)) throw new UsageError(`An attempt of run ${id} was already applied: crow undo takes it back; a run is applied once.`);
  let host: HostSession | undefined;
  let code = 1;
  try {
    // The run's own session (crow undo --session ID finds it), made by this first prompt when the run stored none.
    host = await openRunSession({ root, overrides: {}, undo: true, interactive: false, ...(store.has(id) ? { session: id } : { id }) }, io);
    const events = host.prompt(applyAttemptText(n), { program: applyAttemptProgram(target, n, changes, io.env) });
    for await (const event of events) void event;
    const outcome = await events.result;
    io.stderr.write(`${outcome.message}\n`);
    code = outcome.status === 'completed' ? 0 : 1;
  } catch (err) {
    io.stderr.write(`Attempt ${n} was not applied: ${errorText(err)}\n`);
  } finally {
    await host?.close();
    if (code !== 0) releaseApplied(data, id);
  }
  return code;
}

/** What `crow sessions show` adds for a finished run of attempts: how to pick one, or which was picked. */
export function pickLine(data: string, id: string): string | undefined {
  const kept = readKept(data, id);
  if (kept === undefined) return undefined;
  if ('problem' in kept) return `What the run kept does not read (${kept.problem}): its attempts cannot be picked.`;
  const applied = keptApplied(data, id);
  if (applied) return applied.n > 0 ? `Attempt ${applied.n} was applied (crow undo takes it back).` : 'An attempt was applied (crow undo takes it back).';
  const numbers = pickable(kept);
  if (numbers.length === 0) return 'No attempt changed anything: nothing to pick.';
  return `Apply one with: crow sessions apply ${id} N (N: ${numbers.join(', ')}, best first); crow undo takes it back.`;
}

function keptOf(data: string, id: string): KeptAttempts {
  const kept = readKept(data, id);
  if (kept === undefined) throw new UsageError(`Run ${id} kept no attempts to pick from (it was not a run of attempts, or it did not end its attempts).`);
  if ('problem' in kept) throw new UsageError(`What run ${id} kept does not read: ${kept.problem}. Nothing was applied.`);
  return kept;
}
