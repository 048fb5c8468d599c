import { closeSync, fstatSync, openSync } from 'node:fs';
import type { HistoryEntry } from './history';
import { type InternalSession, viewBounds } from './internal-session';
import { parsedLines, readBytes } from './jsonl';

/**
 * What meta.json vouches for about one history file, as of its last save:
 * its first `bytes` bytes hold `entries` entries, and (`view`) the entry the
 * model's view was made from then starts at byte `view.byte`. With it, a
 * resumed session reads the file from there to the end: what the next
 * request needs, and nothing before. Absent in sessions stored before it was
 * kept (`view` too): those are read whole once, or back from the end, and
 * have it from their next save on.
 */
export interface HistoryMark {
  entries: number;
  bytes: number;
  view?: HistoryOffset;
}

/** Entry `entry` of a history file starts at byte `byte`. */
export interface HistoryOffset {
  entry: number;
  byte: number;
}

/**
 * A history as loaded: whole, or from entry `earlier.count` on, with the
 * reader of the entries before; and (`offsets`) the byte of the file where
 * each entry of `history` starts, for the marks of its next saves.
 */
export interface LoadedHistory {
  history: HistoryEntry[];
  earlier?: { count: number; load: () => HistoryEntry[] };
  offsets: number[];
}

/** The first read back from where reading began; each further read is twice the last, so the reading stays in proportion to what is kept. */
const FIRST_READ = 256 * 1024;

/** Entries read from `start` (a byte of the file, a line boundary) to its end, the first being entry `base`. */
interface Window {
  start: number;
  base: number;
  entries: HistoryEntry[];
  offsets: number[];
}

/**
 * Reads the history in `file`, as far back as the model's view reaches (see
 * viewStart): from the mark's view offset when the file bears it out, else
 * back from the mark's end in growing reads. A missing or bad mark, or a
 * file that does not match it (shorter than the mark, fewer entries than it
 * says), reads the file whole.
 */
export function readHistory(file: string, mark: HistoryMark | undefined, warn: (message: string) => void): LoadedHistory {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { history: [], offsets: [] };
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    const whole = (): Window => read(fd, file, 0, size, 0, warn);
    if (!isMark(mark) || size < mark.bytes) return loaded(file, whole(), warn);
    const window = fromView(fd, file, mark, size, warn) ?? readBack(fd, file, warn, read(fd, file, mark.bytes, size, mark.entries, warn));
    return loaded(file, window ?? whole(), warn);
  } finally {
    closeSync(fd);
  }
}

/**
 * The window from the mark's view offset, when the file bears it out: the
 * offset starts a line, the entries up to the mark's end are as many as it
 * says, and they are enough to tell where the view begins. Undefined
 * otherwise (what it warned of is then not told: the reading back tells it).
 */
function fromView(fd: number, file: string, mark: HistoryMark, size: number, warn: (message: string) => void): Window | undefined {
  const view = mark.view;
  if (!isOffset(view) || view.entry > mark.entries || view.byte > mark.bytes) return undefined;
  if (view.byte > 0 && readBytes(fd, view.byte - 1, view.byte)[0] !== 0x0a) return undefined;
  const warnings: string[] = [];
  const window = read(fd, file, view.byte, size, view.entry, (message) => warnings.push(message));
  const counted = window.offsets.findIndex((offset) => offset >= mark.bytes);
  if ((counted < 0 ? window.entries.length : counted) !== mark.entries - view.entry) return undefined;
  if (viewBounds(window.base, window.entries) === undefined) return undefined;
  for (const message of warnings) warn(message);
  return window;
}

/** Reads back from `window` in growing reads until the entries read tell where the view begins; undefined when the file does not match the count it started from. */
function readBack(fd: number, file: string, warn: (message: string) => void, window: Window): Window | undefined {
  let chunk = FIRST_READ;
  while (window.start > 0 && window.base > 0 && viewBounds(window.base, window.entries) === undefined) {
    const from = Math.max(0, window.start - chunk);
    chunk *= 2;
    const bytes = readBytes(fd, from, window.start);
    // The first line of a read that does not start the file may be cut: it is read with the next.
    const cut = from === 0 ? 0 : bytes.indexOf(0x0a) + 1;
    if (cut === 0 && from > 0) continue;
    const { values, offsets } = parsedLines<HistoryEntry>(bytes.subarray(cut).toString('utf8'), file, warn, from + cut);
    window = { start: from + cut, base: window.base - values.length, entries: [...values, ...window.entries], offsets: [...offsets, ...window.offsets] };
  }
  if (window.start === 0) return { ...window, base: 0 };
  // Reading back found as many entries as the mark counts before the file's start: the file is not the one the mark describes.
  return window.base > 0 ? window : undefined;
}

/** The entries from byte `from` to `to`, the first being entry `base`. */
function read(fd: number, file: string, from: number, to: number, base: number, warn: (message: string) => void): Window {
  // Read from the start, a bad line is named by its line number.
  const { values, offsets } = parsedLines<HistoryEntry>(readBytes(fd, from, to).toString('utf8'), file, warn, from === 0 ? undefined : from);
  return { start: from, base, entries: values, offsets };
}

/** The history a window makes: the entries before it read when asked. */
function loaded(file: string, window: Window, warn: (message: string) => void): LoadedHistory {
  const { entries: history, offsets } = window;
  if (window.base === 0) return { history, offsets };
  const end = window.start;
  return { history, offsets, earlier: { count: window.base, load: () => readStart(file, end, warn) } };
}

/** The entries in the first `end` bytes of `file`. */
function readStart(file: string, end: number, warn: (message: string) => void): HistoryEntry[] {
  const fd = openSync(file, 'r');
  try {
    return parsedLines<HistoryEntry>(readBytes(fd, 0, end).toString('utf8'), file, warn).values;
  } finally {
    closeSync(fd);
  }
}

function isMark(mark: HistoryMark | undefined): mark is HistoryMark {
  return mark !== undefined && Number.isSafeInteger(mark.entries) && Number.isSafeInteger(mark.bytes) && mark.entries >= 0 && mark.bytes >= 0;
}

function isOffset(offset: HistoryOffset | undefined): offset is HistoryOffset {
  return offset !== undefined && offset !== null && Number.isSafeInteger(offset.entry) && Number.isSafeInteger(offset.byte) && offset.entry >= 0 && offset.byte >= 0;
}

/**
 * Keeps what the next mark of one history file needs: where the entry the
 * model's view is made from starts. That is known for the entries read at
 * load and for every entry appended since; offsets before the view's start
 * are let go at each mark (a view moves back only by a rewind, and then
 * the mark goes without its view until the next load finds it again).
 */
export class HistoryMarker {
  /** Byte offsets of the entries from index `first` on. */
  private offsets: number[];
  private first: number;

  /** `loaded`: where the entries read at load start, the first being entry `first` (the marker keeps the array). */
  constructor(
    private readonly history: { readonly length: number; readonly knownViewFirst: number | undefined },
    loaded: { first: number; offsets: number[] } = { first: 0, offsets: [] },
  ) {
    this.first = loaded.first;
    this.offsets = loaded.offsets;
  }

  /** Entry `index` is about to be written at byte `byte`. */
  appending(index: number, byte: number): void {
    if (this.first + this.offsets.length !== index) {
      this.first = index;
      this.offsets = [];
    }
    this.offsets.push(byte);
  }

  /** The mark of a file of `bytes` bytes holding the history as it is now. */
  mark(bytes: number): HistoryMark {
    const mark: HistoryMark = { entries: this.history.length, bytes };
    const entry = this.history.knownViewFirst;
    if (entry === undefined || entry < this.first) return mark;
    const byte = this.offsets[entry - this.first];
    if (byte === undefined) return mark;
    if (entry > this.first) {
      this.offsets = this.offsets.slice(entry - this.first);
      this.first = entry;
    }
    return { ...mark, view: { entry, byte } };
  }
}

/** The text of a file holding `history` whole, each entry's line as `line` writes it, and its mark. */
export function historyText(history: InternalSession, line: (entry: HistoryEntry) => string): { text: string; mark: HistoryMark } {
  const marker = new HistoryMarker(history);
  let bytes = 0;
  const lines = history.entries.map((entry, index) => {
    const text = line(entry);
    marker.appending(index, bytes);
    bytes += Buffer.byteLength(text);
    return text;
  });
  return { text: lines.join(''), mark: marker.mark(bytes) };
}
