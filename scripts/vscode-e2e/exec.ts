import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { HarnessError } from './harness-error';

const TAIL_LINES = 40;

/**
 * Runs a command to completion with its output in `logFile` (installs are
 * chatty and mostly irrelevant); on failure the error carries the log's tail.
 */
export async function runLogged(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string },
): Promise<void> {
  const log = createWriteStream(options.logFile);
  await new Promise<void>((resolve) => log.once('open', () => resolve()));
  log.write(`$ ${command} ${args.join(' ')}\n`);
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', log, log] });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  await new Promise<void>((resolve) => log.end(resolve));
  if (code !== 0) {
    const tail = readFileSync(options.logFile, 'utf8').trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
    throw new HarnessError(`\`${command} ${args.join(' ')}\` exited with ${code}. Last lines of ${options.logFile}:\n${tail}`);
  }
}
