/**
 * The vendor SDKs print some warnings themselves: the Anthropic SDK calls
 * console.warn from messages.create() for a deprecated model and for a
 * deprecated thinking setting (@anthropic-ai/sdk resources/messages), on
 * every request, into the CLI's output and over its spinner. Crow catches
 * them while the SDK sets a request up and passes each on once per process,
 * as a notice of the run (each door shows and logs notices its own way).
 */
import type { StreamEvent } from './types';

/** Every warning already passed on in this process. */
const told = new Set<string>();

/**
 * Runs `call` (synchronous: the SDK warns before its first await) with
 * console.warn caught; `warnings` gets what the SDK said that was not
 * passed on before.
 */
export function catchingSdkWarnings<T>(call: () => T, warnings: string[]): T {
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    const text = args.map(String).join(' ').replace(/\s+/g, ' ').trim();
    if (text !== '' && !told.has(text)) {
      told.add(text);
      warnings.push(text);
    }
  };
  try {
    return call();
  } finally {
    console.warn = original;
  }
}

/** The events, with each warning caught so far sent as a notice before the next event (the SDK warns at each attempt's start). */
export async function* withSdkWarnings(events: AsyncIterable<StreamEvent>, warnings: string[]): AsyncGenerator<StreamEvent> {
  for await (const event of events) {
    for (const message of warnings.splice(0)) yield { type: 'notice', message };
    yield event;
  }
}
