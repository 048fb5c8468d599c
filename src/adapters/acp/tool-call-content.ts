import { resolve } from 'node:path';
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import { applyPatch, parsePatch, reversePatch, type StructuredPatch } from 'diff';
import { screenText } from '../../engine/output-tail';
import type { ToolKind, ToolResult } from '../../tools/tool';
import { fenced } from './client-text';

/** Beyond this size a file is shown by its changed hunks: whole texts would flood the client twice over. */
const WHOLE_FILE_MAX_CHARS = 256_000;

/** Reads a workspace file's current text, as the tools see it. */
export type ReadText = (relativePath: string) => Promise<string>;

/**
 * Diff content for a tool's unified diff, one entry per file. When the file's
 * current text can be read, the entry holds whole files: the current text as
 * `newText` and, as `oldText`, that text with this diff reversed, so the
 * client shows exactly this call's change even if later calls touched the
 * file. When the file cannot be read, is very large, or the diff no longer
 * applies, the entries hold the changed hunks only (as `hunkDiffs` does).
 */
export async function diffContent(diff: string, cwd: string, read: ReadText): Promise<ToolCallContent[]> {
  const files = await Promise.all(parsePatch(diff).map((patch) => wholeFileDiff(patch, cwd, read)));
  return files.flat();
}

/** Diff content from the hunks alone: each hunk's old and new lines with their context. Needs no file access. */
export function hunkDiffs(diff: string, cwd: string): ToolCallContent[] {
  return parsePatch(diff).flatMap((patch) => hunksOf(patch, cwd));
}

/** What a finished tool call shows besides diffs and terminals: the error, then the output (as a terminal would show it), then images. */
export function resultContent(kind: ToolKind, result: ToolResult, hasDiff: boolean): ToolCallContent[] {
  const content: ToolCallContent[] = [];
  if (result.error !== undefined) content.push(textContent(`Error: ${result.error}`));
  const showOutput = result.output.trim() !== '' && !(hasDiff && result.status === 'success');
  if (showOutput) content.push(textContent(fenced(screenText(result.output), kind === 'execute' ? 'console' : '')));
  for (const image of result.images ?? []) {
    content.push({ type: 'content', content: { type: 'image', data: image.data, mimeType: image.mimeType } });
  }
  return content;
}

/** What a running call shows while it works: the end of its output as a console block, and its step in words; none when there is neither. */
export function progressContent(progress: { tail?: string; step?: string }): ToolCallContent[] {
  const content: ToolCallContent[] = [];
  if (progress.step) content.push(textContent(progress.step));
  if (progress.tail) content.push(textContent(fenced(progress.tail, 'console')));
  return content;
}

function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

async function wholeFileDiff(patch: StructuredPatch, cwd: string, read: ReadText): Promise<ToolCallContent[]> {
  const { path, created, deleted } = patchTarget(patch);
  if (deleted) return hunksOf(patch, cwd);
  let current: string;
  try {
    current = await read(path);
  } catch {
    return hunksOf(patch, cwd);
  }
  if (current.length > WHOLE_FILE_MAX_CHARS) return hunksOf(patch, cwd);
  const before = applyPatch(current, reversePatch(patch));
  if (before === false) return hunksOf(patch, cwd);
  return [{ type: 'diff', path: resolve(cwd, path), oldText: created ? null : before, newText: current }];
}

function hunksOf(patch: StructuredPatch, cwd: string): ToolCallContent[] {
  const { path, created } = patchTarget(patch);
  return patch.hunks.map((hunk) => {
    const side = (mark: string): string =>
      hunk.lines
        .filter((line) => line.startsWith(' ') || line.startsWith(mark))
        .map((line) => line.slice(1))
        .join('\n');
    return { type: 'diff', path: resolve(cwd, path), oldText: created ? null : side('-'), newText: side('+') };
  });
}

/** The workspace-relative path a patch changes, from its `a/` and `b/` headers. */
function patchTarget(patch: StructuredPatch): { path: string; created: boolean; deleted: boolean } {
  const created = patch.oldFileName === '/dev/null';
  const deleted = patch.newFileName === '/dev/null';
  const header = deleted ? patch.oldFileName : patch.newFileName;
  return { path: header.replace(/^[ab]\//, ''), created, deleted };
}
