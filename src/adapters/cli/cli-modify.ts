import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../../config/paths';
import type { EditableArguments } from '../../tools/permissions';
import type { CliIO } from './cli-io';
import type { Style } from './terminal-style';
import { childProcess } from '../../vocabulary/first-use';

/**
 * Seed 002's Modify on the terminal: the person edits the call's arguments,
 * then it runs with theirs. With $VISUAL or $EDITOR (and a terminal) the
 * arguments open as pretty JSON in that editor, as git opens a commit
 * message; otherwise they are shown on one line and the changed fields are
 * typed as one line of JSON (merged over the rest, null removes a field).
 * An edit that is not JSON or does not fit the tool's parameters is shown
 * with what is wrong and offered again as it was typed, never lost.
 * Resolves the accepted arguments, or undefined when the person gives up
 * (an empty answer, "n", end of input, a cancel).
 */
export async function modifyArguments(io: CliIO, style: Style, editable: EditableArguments, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
  const editor = io.stdinIsTTY ? (io.env.VISUAL || io.env.EDITOR || '').trim() : '';
  return editor !== '' ? inEditor(io, style, editor, editable, signal) : onOneLine(io, style, editable, signal);
}

async function inEditor(io: CliIO, style: Style, editor: string, editable: EditableArguments, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
  // mkdtemp makes the folder 700: the arguments may hold what only this user should read.
  const dir = mkdtempSync(join(tmpdir(), 'crow-edit-'));
  const file = join(dir, 'arguments.json');
  try {
    let text = `${JSON.stringify(editable.arguments, null, 2)}\n`;
    for (;;) {
      writeFileSync(file, text, { mode: PRIVATE_FILE_MODE });
      io.stderr.write(`  ${style.dim(`editing the arguments in ${editor} (save and quit to go on)`)}\n`);
      const exit = await runEditor(editor, file, signal);
      if (signal.aborted) return undefined;
      if (exit !== 0) {
        io.stderr.write(`  ${style.red(`${editor} exited with ${exit}; the arguments were not changed.`)} Set VISUAL or EDITOR to an editor that waits until you quit.\n`);
        return undefined;
      }
      const before = text;
      text = readFileSync(file, 'utf8');
      const checked = checkEdit(text, editable);
      if (checked.ok && text !== before) return checked.value;
      // An editor that returns at once (one that does not wait, like `code` without --wait) must not answer for the person.
      const why = checked.ok ? style.yellow('The arguments were not changed.') : style.red(`✗ ${checked.problem}`);
      const choices = checked.ok ? '[y] allow them as they are · [e] edit again · [n] no, do not run it' : '[e] edit again (your edit is kept) · [n] no, do not run it';
      io.stderr.write(`  ${why}\n  ${style.dim(choices)} `);
      const again = ((await io.readLine(signal)) ?? '').trim().toLowerCase();
      if (checked.ok && (again === 'y' || again === 'yes')) return checked.value;
      if (again !== 'e' && again !== 'edit') return undefined;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onOneLine(io: CliIO, style: Style, editable: EditableArguments, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
  io.stderr.write(`  ${style.dim('now:')} ${JSON.stringify(editable.arguments)}\n`);
  io.stderr.write(`  ${style.dim('Type the fields to change as one line of JSON, e.g. {"path": "other.txt"} (null removes a field; empty line: do not run it).')}\n`);
  for (;;) {
    io.stderr.write(`  ${style.bold('>')} `);
    const line = await io.readLine(signal);
    if (line === undefined || line.trim() === '') {
      if (line === undefined) io.stderr.write('\n');
      return undefined;
    }
    const checked = checkEdit(line, editable, true);
    if (checked.ok) return checked.value;
    io.stderr.write(`  ${style.red(`✗ ${checked.problem}`)}\n  ${style.dim('you typed:')} ${line.trim()}\n`);
  }
}

type Checked = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

/** The edit as arguments the tool takes; `merge` lays a partial object over the current arguments. */
function checkEdit(text: string, editable: EditableArguments, merge = false): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: `not JSON: ${(err as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: 'the arguments must be one JSON object, {…}' };
  const edited: Record<string, unknown> = merge ? { ...editable.arguments } : {};
  for (const [key, field] of Object.entries(value)) {
    if (merge && field === null) delete edited[key];
    else edited[key] = field;
  }
  const problem = editable.check(edited);
  return problem === undefined ? { ok: true, value: edited } : { ok: false, problem: `does not fit the tool's parameters: ${problem}` };
}

/** Runs the person's editor (a shell command line, as git runs it) on `file` on this terminal; its exit code. */
function runEditor(editor: string, file: string, signal: AbortSignal): Promise<number> {
  return new Promise((resolve) => {
    const child = childProcess().spawn('sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit', signal });
    child.on('error', () => resolve(127));
    child.on('close', (code) => resolve(code ?? 1));
  });
}
