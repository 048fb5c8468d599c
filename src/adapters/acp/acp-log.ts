import { createWriteStream, type WriteStream } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import { PRIVATE_FILE_MODE } from '../../config/paths';
import { privateFolderProblem } from '../../config/private-files';
import { Redactor } from '../../telemetry/redact';

export type LogLevel = 'info' | 'warn' | 'error';

/** Where the ACP server reports what it does. stdout carries only protocol, so never there. */
export interface AcpLogger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  /** Masks what `redactor` knows too from now on (a folder's configured key variables, learnt when its sessions open). */
  knowSecrets?(redactor: Redactor): void;
  /** Ends the log file; later messages go to stderr only. */
  close(): Promise<void>;
}

/** Folder of logs (XDG_STATE_HOME honoured, default ~/.local/state). */
export function logFolder(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'crow-agent', 'logs');
}

/**
 * Logs to stderr and appends to `<state>/crow-agent/logs/acp-YYYY-MM-DD.log`.
 * Every line passes the session redactor of src/telemetry (secret-looking
 * environment variables, credentials in headers) and every folder's own
 * redactor learnt since (its configured key variables).
 * A log file that cannot be opened, or whose folder is not crow's own
 * (config/private-files.ts), is reported once on stderr and skipped.
 */
export function createAcpLogger(env: NodeJS.ProcessEnv, stderr: NodeJS.WritableStream): AcpLogger {
  const redactors: Redactor[] = [new Redactor(env)];
  const file = openLogFile(env, stderr);
  return {
    log(level, message, fields) {
      const detail = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
      const line = redactors.reduce((text, redactor) => redactor.text(text), `${new Date().toISOString()} ${level.padEnd(5)} ${message}${detail}`);
      stderr.write(`${line}\n`);
      file?.write(`${line}\n`);
    },
    knowSecrets(redactor) {
      if (!redactors.includes(redactor)) redactors.push(redactor);
    },
    close() {
      return new Promise((resolve) => (file ? file.end(resolve) : resolve()));
    },
  };
}

/**
 * Routes console output to the logger for as long as the server runs, so no
 * dependency can write to stdout behind the protocol's back. Returns the undo.
 */
export function captureConsole(logger: AcpLogger): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn, error: console.error };
  const to = (level: LogLevel) => (...args: unknown[]) => logger.log(level, format(...args));
  console.log = to('info');
  console.info = to('info');
  console.debug = to('info');
  console.warn = to('warn');
  console.error = to('error');
  return () => Object.assign(console, saved);
}

function openLogFile(env: NodeJS.ProcessEnv, stderr: NodeJS.WritableStream): WriteStream | undefined {
  const folder = logFolder(env);
  const path = join(folder, `acp-${new Date().toISOString().slice(0, 10)}.log`);
  const problem = privateFolderProblem(folder, { create: true });
  if (problem !== undefined) {
    stderr.write(`crow acp: not writing a log file where another user could read or change it: ${problem}\n`);
    return undefined;
  }
  try {
    const stream = createWriteStream(path, { flags: 'a', mode: PRIVATE_FILE_MODE });
    stream.on('error', (err) => stderr.write(`crow acp: cannot write the log file ${path}: ${err.message}\n`));
    return stream;
  } catch (err) {
    stderr.write(`crow acp: cannot open the log file ${path}: ${(err as Error).message}\n`);
    return undefined;
  }
}
