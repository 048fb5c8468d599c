/**
 * A file change an approval asks about, as the person edited it in VS
 * Code's diff editor, turned back into the call's own arguments. The
 * engine's Modify contract (define-tool.ts, permissions.ts) takes edited
 * arguments only when they fit the same tool's parameters, and checks them
 * again: so write_file gets the edited text as its `content`, and edit_file
 * an `old_string`/`new_string` pair that turns the file as it is now into
 * the edited text. The path is always the approval's own, whatever the
 * editor's document is called. Plain Node: the controller and tests use it.
 */

/** The tools whose change the diff editor can edit, by what their arguments hold. */
const FILE_CHANGE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

/** The longest text (in characters, about bytes for code) the diff editor edits for an approval. */
export const MAX_EDITED_CHARS = 1_000_000;

/** Whether an approval of `tool` may be edited in the diff editor (its arguments rebuilt by editedArguments). */
export function editsInEditor(tool: string, args: Record<string, unknown>): boolean {
  return FILE_CHANGE_TOOLS.has(tool) && typeof args['path'] === 'string';
}

/** Why the file or its proposed text cannot be edited in the editor (binary, too large); undefined when it can. */
export function notEditable(path: string, current: string | undefined, proposed: string): string | undefined {
  if (current?.includes('\0') || proposed.includes('\0')) return `${path} is a binary file: its change cannot be edited as text. Allow or deny it as it is.`;
  const longest = Math.max(current?.length ?? 0, proposed.length);
  if (longest > MAX_EDITED_CHARS) return `${path} is too large to edit here (${longest} characters; at most ${MAX_EDITED_CHARS}). Allow or deny the change as it is.`;
  return undefined;
}

/**
 * The arguments that make `tool` leave the file holding `edited`, from the
 * model's `args` (their path kept) and the file as it is now (`current`,
 * undefined when there is none); or what is wrong, in words for the card.
 */
export function editedArguments(
  tool: string,
  args: Record<string, unknown>,
  current: string | undefined,
  edited: string,
): { value: Record<string, unknown> } | { problem: string } {
  const path = args['path'];
  if (!editsInEditor(tool, args) || typeof path !== 'string') return { problem: 'this change cannot be edited in the editor' };
  if (edited.includes('\0')) return { problem: 'your version holds a NUL character: Crow only writes text here' };
  if (edited.length > MAX_EDITED_CHARS) return { problem: `your version is too large (${edited.length} characters; at most ${MAX_EDITED_CHARS})` };
  if (tool === 'write_file') return { value: { path, content: edited } };
  if (current === undefined) return { problem: `${path} no longer exists, so the edit cannot apply; deny it and let the agent read the file again` };
  if (edited === current) return { problem: `your version leaves ${path} as it is now: there is nothing to allow. Deny the change instead` };
  const { before, after } = uniqueStretch(current, edited);
  return { value: { path, old_string: before, new_string: after } };
}

/**
 * The stretch of `current` that differs from `edited`, in whole lines,
 * widened a line at a time until it occurs once in `current` (so edit_file
 * finds exactly it), and what `edited` has in its place.
 */
export function uniqueStretch(current: string, edited: string): { before: string; after: string } {
  let head = 0;
  const shortest = Math.min(current.length, edited.length);
  while (head < shortest && current[head] === edited[head]) head++;
  let tail = 0;
  while (tail < shortest - head && current[current.length - 1 - tail] === edited[edited.length - 1 - tail]) tail++;
  // Whole lines: back to the start of the first changed line, on to the end of the last (its line break included).
  let start = current.lastIndexOf('\n', head - 1) + 1;
  let end = lineEnd(current, current.length - tail);
  const stretch = (): { before: string; after: string } => ({
    before: current.slice(start, end),
    after: edited.slice(start, edited.length - (current.length - end)),
  });
  let found = stretch();
  while ((found.before === '' || current.indexOf(found.before) !== current.lastIndexOf(found.before)) && (start > 0 || end < current.length)) {
    start = start > 1 ? current.lastIndexOf('\n', start - 2) + 1 : 0;
    end = end < current.length ? lineEnd(current, end + 1) : end;
    found = stretch();
  }
  return found;
}

/** Where the line holding offset `at` ends, after its line break; `at` itself when it starts a line (or ends the text). */
function lineEnd(text: string, at: number): number {
  if (at === 0 || text[at - 1] === '\n') return at;
  const next = text.indexOf('\n', at);
  return next === -1 ? text.length : next + 1;
}
