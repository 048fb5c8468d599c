import { closeSync, fstatSync, openSync } from 'node:fs';
import type { HistoryEntry } from './history';
import { viewStart } from './internal-session';
import { parseLines, readBytes, readJsonl } from './jsonl';

/**
 * What meta.json vouches for about one history file, as of its last save:
 * its first `bytes` bytes hold `entries` entries. With it, a resumed session
 * reads the file from the end back to where the model's view begins (the
 * last compaction), not the whole file. Absent in sessions stored before
 * it was kept: those are read whole once, and have it from their next save on.
 */
export interface HistoryMark {
  entries: number;
  bytes: number;
}

/** A history as loaded: whole, or from entry `earlier.count` on, with the reader of the entries before. */
export interface LoadedHistory {
  history: HistoryEntry[];
  earlier?: { count: number; load: () => HistoryEntry[] };
}

/** The first read back from the mark; each further read is twice the last, so the reading stays in proportion to what is kept. */
const FIRST_READ = 256 * 1024;

/**
 * Reads the history in `file`: what lies past the mark, then back from the
 * mark until the entries read reach the start of the model's view (see
 * viewStart). A missing or bad mark, or a file that does not match it
 * (shorter than the mark, fewer entries than it says), reads the file whole.
 */
export function readHistory(file: string, mark: HistoryMark | undefined, warn: (message: string) => void): LoadedHistory {
  if (!isMark(mark)) return { history: readJsonl<HistoryEntry>(file, warn) };
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { history: [] };
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    if (size < mark.bytes) return { history: readJsonl<HistoryEntry>(file, warn) };
    let window = parseLines<HistoryEntry>(readBytes(fd, mark.bytes, size).toString('utf8'), file, warn, mark.bytes);
    let start = mark.bytes;
    let base = mark.entries;
    let chunk = FIRST_READ;
    while (start > 0 && base > 0 && viewStart(base, window) === undefined) {
      const from = Math.max(0, start - chunk);
      chunk *= 2;
      const bytes = readBytes(fd, from, start);
      // The first line of a read that does not start the file may be cut: it is read with the next.
      const cut = from === 0 ? 0 : bytes.indexOf(0x0a) + 1;
      if (cut === 0 && from > 0) continue;
      const values = parseLines<HistoryEntry>(bytes.subarray(cut).toString('utf8'), file, warn, from + cut);
      window = [...values, ...window];
      base -= values.length;
      start = from + cut;
    }
    if (start === 0) return { history: window };
    if (base <= 0) return { history: readJsonl<HistoryEntry>(file, warn) };
    const end = start;
    return { history: window, earlier: { count: base, load: () => readStart(file, end, warn) } };
  } finally {
    closeSync(fd);
  }
}

/** The entries in the first `end` bytes of `file`. */
function readStart(file: string, end: number, warn: (message: string) => void): HistoryEntry[] {
  const fd = openSync(file, 'r');
  try {
    return parseLines<HistoryEntry>(readBytes(fd, 0, end).toString('utf8'), file, warn);
  } finally {
    closeSync(fd);
  }
}

function isMark(mark: HistoryMark | undefined): mark is HistoryMark {
  return mark !== undefined && Number.isSafeInteger(mark.entries) && Number.isSafeInteger(mark.bytes) && mark.entries >= 0 && mark.bytes >= 0;
}
