/**
 * `crow __keeper WORKSPACE DATA_HOME`: the folder's keeper (journal/keeper.ts),
 * started detached by a `crow run` whose own undo record was slow. Not meant
 * to be typed; `ps` shows it with the folder it keeps. It stops by itself after 15
 * minutes without a run, or once its workspace or socket is gone; SIGTERM
 * stops it at once. CROW_KEEPER=off keeps runs from starting one.
 */
import { isAbsolute } from 'node:path';
import { IDLE_MS, serveKeeper } from '../../journal/keeper';
import type { KeeperLaunch } from '../../journal/keeper-client';
import { type CliIO, UsageError } from './cli-io';

/** The hidden subcommand's name. */
export const KEEPER_COMMAND = '__keeper';

export async function keeperCommand(argv: string[], io: CliIO): Promise<number> {
  const [workspace, dataHome, ...rest] = argv;
  if (workspace === undefined || dataHome === undefined || rest.length > 0 || !isAbsolute(workspace) || !isAbsolute(dataHome)) {
    throw new UsageError(`${KEEPER_COMMAND} is started by crow run itself, with two absolute paths: the workspace and the data folder`);
  }
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort());
  process.once('SIGINT', () => stop.abort());
  await serveKeeper({ workspace, dataHome, env: io.env, idleMs: positive(io.env.CROW_KEEPER_IDLE_MS) ?? IDLE_MS }, stop.signal);
  return 0;
}

/**
 * How this `crow` starts a keeper, or undefined when it does not:
 * CROW_KEEPER=off, or a crow not run from its script (nothing to start).
 * CROW_KEEPER_SLOW_MS sets how slow a run's own record must be to start one.
 */
export function keeperLaunch(env: NodeJS.ProcessEnv): KeeperLaunch | undefined {
  if (env.CROW_KEEPER === 'off' || env.CROW_KEEPER === '0') return undefined;
  const script = process.argv[1];
  if (script === undefined || !isAbsolute(script)) return undefined;
  const slow = nonNegative(env.CROW_KEEPER_SLOW_MS);
  return { command: process.execPath, args: [script, KEEPER_COMMAND], ...(slow !== undefined ? { slowRecordMs: slow } : {}) };
}

function positive(text: string | undefined): number | undefined {
  const value = nonNegative(text);
  return value !== undefined && value > 0 ? value : undefined;
}

function nonNegative(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}
