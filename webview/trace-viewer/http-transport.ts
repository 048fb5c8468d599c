/**
 * The viewer served by `crow trace SESSION --serve`: spans from `GET ./spans`,
 * live changes from `GET ./events` (Server-Sent Events: a span record per
 * message, and `recording` events). The event stream is opened before the
 * spans are fetched, so nothing falls between; a record seen twice is
 * harmless. There is no host to save or copy for the page, so export
 * downloads a file and copy uses the browser's clipboard.
 */
import type { SpanRecord } from '../../src/telemetry/span';
import { copyText } from './clipboard';
import { FORMAT_LABELS, type HostMessage, type Transport, type ViewerMessage } from './protocol';

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
  let loaded = false;
  const load = async (): Promise<void> => {
    loaded = true;
    try {
      const response = await fetch('./spans');
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      receive({ type: 'spans', spans: (await response.json()) as SpanRecord[] });
    } catch (err) {
      receive({ type: 'notice', text: `Could not load the spans (${(err as Error).message}). Is crow trace --serve still running?`, error: true });
    }
  };
  const events = new EventSource('./events');
  events.onmessage = (event: MessageEvent<string>) => receive({ type: 'spans', spans: [JSON.parse(event.data) as SpanRecord] });
  events.addEventListener('recording', (event) => {
    const { recording } = JSON.parse((event as MessageEvent<string>).data) as { recording: boolean };
    receive({ type: 'recording', recording });
  });
  events.onopen = () => void load();
  events.onerror = () => {
    if (!loaded) void load();
  };
}

function download(fileName: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function spans(count: number): string {
  return `${count.toLocaleString('en-US')} span${count === 1 ? '' : 's'}`;
}
