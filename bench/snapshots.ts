/**
 * Undo snapshots: what the shadow git repository costs on a 10,000-file
 * workspace — the first track, a track with nothing changed (what every
 * write or command pays), a track after a 10-file edit, and changes() and
 * diff() between two snapshots. Medians, in milliseconds.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitSnapshotManager } from '../src/session/git-snapshots';
import { median } from './common';

const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const EDITED = 10;
const RUNS = 7;

export async function snapshotBenchmark(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-snapshots-'));
  try {
    const workspace = join(base, 'ws');
    generateWorkspace(workspace);
    const first: number[] = [];
    for (let run = 0; run < 3; run++) {
      const fresh = new GitSnapshotManager({ workspace, dataHome: join(base, `data-${run}`) });
      first.push(await measure(() => fresh.track()));
    }
    const snapshots = new GitSnapshotManager({ workspace, dataHome: join(base, 'data-0') });
    const unchanged: number[] = [];
    const edited: number[] = [];
    const changes: number[] = [];
    const diff: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const before = await snapshots.track();
      unchanged.push(await measure(() => snapshots.track()));
      editFiles(workspace, run);
      let after = '';
      edited.push(await measure(async () => (after = await snapshots.track())));
      changes.push(await measure(() => snapshots.changes(before, after)));
      diff.push(await measure(() => snapshots.diff(before, after)));
    }
    console.log(`Undo snapshots: ${FOLDERS * FILES_PER_FOLDER} files, shadow git repository, median ms`);
    console.log(
      `  first track ${ms(first)} · unchanged track ${ms(unchanged)} · track after ${EDITED} edits ${ms(edited)}` +
        ` · changes() ${ms(changes)} · diff() ${ms(diff)}`,
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function generateWorkspace(root: string): void {
  for (let folder = 0; folder < FOLDERS; folder++) {
    mkdirSync(join(root, `pkg${folder}`), { recursive: true });
    for (let file = 0; file < FILES_PER_FOLDER; file++) {
      writeFileSync(join(root, `pkg${folder}`, `m${file}.ts`), source(folder, file, 0));
    }
  }
}

function editFiles(root: string, run: number): void {
  for (let i = 0; i < EDITED; i++) writeFileSync(join(root, `pkg${i * 7}`, `m${run}.ts`), source(i, run, run + 1));
}

function source(folder: number, file: number, version: number): string {
  const lines = Array.from({ length: 40 }, (_, line) => `export const v${line} = ${folder * 1000 + file + line + version};`);
  return `${lines.join('\n')}\n`;
}

async function measure(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

function ms(samples: number[]): string {
  return `${median(samples).toFixed(0)}`;
}
