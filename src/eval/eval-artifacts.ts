/**
 * What a run leaves behind for whoever reads its result later: the final
 * diff of the agent's work against the task's starting files, and the full
 * output of the hidden check. Both are written under the evaluation's
 * folder at runs/TASK/AGENT/REPEAT/ (diff.patch, check.log); results.jsonl
 * names them relative to that folder, so a merged or moved folder keeps
 * its links.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { unifiedDiff } from '../tools/unified-diff';

export interface RunArtifacts {
  /** The agent's changes as a unified diff, relative to the evaluation folder. */
  diff: string;
  /** The hidden check's whole output, relative to the evaluation folder. */
  checkLog: string;
}

/** Folders a run's diff leaves out: what tools and package managers create. */
const SKIPPED = new Set(['.git', 'node_modules', '__pycache__', '.crow']);
/** Files past this size are named in the diff, not shown. */
const MAX_DIFF_FILE_BYTES = 256 * 1024;

export function runFolder(task: string, agent: string, repeat: number): string {
  return join('runs', task, agent, String(repeat));
}

/** Writes a run's diff and check log under `out`; returns their paths relative to `out`. */
export function writeArtifacts(out: string, folder: string, diff: string, checkLog: string): RunArtifacts {
  mkdirSync(join(out, folder), { recursive: true, mode: 0o700 });
  const artifacts = { diff: join(folder, 'diff.patch'), checkLog: join(folder, 'check.log') };
  writeFileSync(join(out, artifacts.diff), diff, { mode: 0o600 });
  writeFileSync(join(out, artifacts.checkLog), checkLog, { mode: 0o600 });
  return artifacts;
}

/** The text of an artifact, '' when it is missing (an older results file). */
export function readArtifact(out: string, path: string | undefined): string {
  if (path === undefined) return '';
  const file = join(out, path);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** The unified diff from the files under `before` to those under `after`, file by file in path order. */
export function folderDiff(before: string, after: string): string {
  const old = listFiles(before);
  const now = listFiles(after);
  const paths = [...new Set([...old.keys(), ...now.keys()])].sort();
  const parts: string[] = [];
  for (const path of paths) {
    const a = old.get(path);
    const b = now.get(path);
    const large = (a?.size ?? 0) > MAX_DIFF_FILE_BYTES || (b?.size ?? 0) > MAX_DIFF_FILE_BYTES;
    const textA = a && !large ? readText(a.file) : undefined;
    const textB = b && !large ? readText(b.file) : undefined;
    if (large || textA === null || textB === null) {
      if (a?.size !== b?.size || (a && b && !readFileSync(a.file).equals(readFileSync(b.file)))) parts.push(`Binary or large file ${path} changed\n`);
      continue;
    }
    const diff = unifiedDiff(path, textA, textB).diff;
    if (diff !== '') parts.push(diff.endsWith('\n') ? diff : `${diff}\n`);
  }
  return parts.join('');
}

function listFiles(root: string): Map<string, { file: string; size: number }> {
  const files = new Map<string, { file: string; size: number }>();
  const walk = (folder: string): void => {
    if (!existsSync(folder)) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const file = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) walk(file);
      } else if (entry.isFile() && !SKIPPED.has(entry.name)) {
        // A worktree's .git is a file naming its repository: git's, not the agent's work.
        files.set(relative(root, file).split('\\').join('/'), { file, size: statSync(file).size });
      }
    }
  };
  walk(root);
  return files;
}

/** A file's text; null when it is not UTF-8 text (it holds a NUL byte). */
function readText(file: string): string | null {
  const bytes = readFileSync(file);
  return bytes.includes(0) ? null : bytes.toString('utf8');
}
