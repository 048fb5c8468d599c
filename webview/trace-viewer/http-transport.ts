/**
 * The viewer served by `crow trace SESSION --serve`: the stored trace from
 * `GET ./spans` (trace.jsonl's whole lines, its last line early, streamed:
 * handed on in pieces as they arrive, with Content-Length for the
 * progress), live changes from `GET ./events` (Server-Sent Events: a span
 * record per message, and `recording` events). Both are asked for at once,
 * naming one load: the server sends what was appended between the two on
 * the event stream, so nothing falls between; a record seen twice is
 * harmless. A reconnected event stream loads the stored trace again. There is no host to save or copy for the page, so
 * export downloads a file and copy uses the browser's clipboard.
 */
import type { SpanRecord } from '../../src/telemetry/span';
import { copyText } from './clipboard';
import { count } from './format';
import { FORMAT_LABELS, type HostMessage, type Transport, type ViewerMessage } from './protocol';
import { Pacer } from './turns';

export function httpTransport(): Transport {
  let receive: (message: HostMessage) => void = () => undefined;
  return {
    remember: (key, value) => {
      try {
        localStorage.setItem(`crow-trace.${key}`, value);
      } catch {
        // Storage refused (a private window, a full quota): the choice lasts until the page closes.
      }
    },
    recall: (key) => {
      try {
        return localStorage.getItem(`crow-trace.${key}`) ?? undefined;
      } catch {
        return undefined;
      }
    },
    connect(handler) {
      receive = handler;
      follow(handler);
    },
    send(message: ViewerMessage) {
      switch (message.type) {
        case 'ready':
        case 'stored-taken':
          return;
        case 'export':
          download(message.fileName, message.content);
          return receive({ type: 'notice', text: `Downloaded ${message.fileName}: ${FORMAT_LABELS[message.format]}, ${spans(message.spanCount)}.` });
        case 'copy':
          return void copyText(message.content).then((outcome) =>
            receive({
              type: 'notice',
              text: outcome === 'copied' ? `Copied ${FORMAT_LABELS[message.format]} of ${spans(message.spanCount)} to the clipboard.` : 'The browser refused the clipboard: copy the selected text by hand.',
              error: outcome !== 'copied',
            }),
          );
      }
    },
  };
}

function follow(receive: (message: HostMessage) => void): void {
  let loading = false;
  const load = (id: string): void => {
    if (loading) return;
    loading = true;
    loadStored(id, receive)
      .then(
        () => receive({ type: 'stored-end' }),
        (err: unknown) => receive({ type: 'stored-end', error: `Could not load the spans (${(err as Error).message}). Is crow trace --serve still running?` }),
      )
      .finally(() => (loading = false));
  };
  // The first load goes out with the event stream, not after it has opened: one round trip less before the first screen.
  const first = loadId();
  const events = new EventSource(`./events?load=${first}`);
  load(first);
  events.onmessage = (event: MessageEvent<string>) => receive({ type: 'spans', spans: [JSON.parse(event.data) as SpanRecord] });
  events.addEventListener('recording', (event) => {
    const { recording } = JSON.parse((event as MessageEvent<string>).data) as { recording: boolean };
    receive({ type: 'recording', recording });
  });
  // Again after a reconnection (its request names the first load again, and the server pairs it anew): what was appended meanwhile comes with the rest.
  let opened = false;
  events.onopen = () => {
    if (opened) load(first);
    opened = true;
  };
}

/** A random ID naming one load's pair of requests (not a secret: the cookie guards them). */
function loadId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** How much of the stored trace is handed on at a time. */
const PIECE_BYTES = 128 * 1024;
/** Handed on before the page is first given its turn: the first frame drawn is then a full screen (dozens of spans as Crow stores them, thousands of small ones). */
const FIRST_SCREEN_BYTES = 512 * 1024;
const NEWLINE = 0x0a;

/** Reads the stored trace and hands it on in pieces of whole lines, as they arrive. */
async function loadStored(id: string, receive: (message: HostMessage) => void): Promise<void> {
  const response = await fetch(`./spans?load=${id}`);
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const total = Number(response.headers.get('Content-Length') ?? 0);
  const reader = response.body.getReader();
  const lines = new WholeLines();
  const pacer = new Pacer();
  let read = 0;
  receive({ type: 'stored', lines: '', read, total });
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    // The browser hands over megabytes at a time: taken a little at a time, so the page gets its turns.
    for (let at = 0; at < chunk.value.byteLength; at += PIECE_BYTES) {
      const piece = chunk.value.subarray(at, at + PIECE_BYTES);
      read += piece.byteLength;
      receive({ type: 'stored', lines: lines.take(piece), read, total });
      if (read > FIRST_SCREEN_BYTES) await pacer.pace();
    }
  }
  if (lines.pending) throw new Error('the trace ended in the middle of a line');
}

/**
 * Bytes in, whole lines out as text. Lines are cut on the bytes, before
 * decoding: a newline byte is never part of another UTF-8 character, and
 * the text is decoded once, without being copied again to find its end.
 */
class WholeLines {
  private readonly decoder = new TextDecoder();
  /** The start of a line whose end has not arrived. */
  private rest: Uint8Array | undefined;

  get pending(): boolean {
    return this.rest !== undefined;
  }

  take(bytes: Uint8Array): string {
    if (bytes.length === 0) return '';
    const end = bytes.lastIndexOf(NEWLINE) + 1;
    const whole = end === 0 ? undefined : this.rest ? joined(this.rest, bytes.subarray(0, end)) : bytes.subarray(0, end);
    if (end < bytes.length) this.rest = end === 0 && this.rest ? joined(this.rest, bytes) : bytes.slice(end);
    else this.rest = undefined;
    return whole ? this.decoder.decode(whole) : '';
  }
}

function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const both = new Uint8Array(a.length + b.length);
  both.set(a);
  both.set(b, a.length);
  return both;
}

function download(fileName: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function spans(total: number): string {
  return `${count(total)} span${total === 1 ? '' : 's'}`;
}
