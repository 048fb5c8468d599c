/** What every request of an MCP server to the session shares: where the person is told, how many came in a prompt, its span. */
import type { ACPSession } from '../session/acp-session';
import type { Attributes, Span } from '../telemetry/span';
import type { SharedPromptState } from './prompt-shared';
import type { HostSessionOptions } from './session-options';

const UNSAFE = /[^A-Za-z0-9_-]/g;

const counted = new WeakMap<AbortSignal, Map<string, number>>();

/** Counts one more request of kind `key` in the prompt of `signal`; the count so far, this one included. */
export function countInPrompt(signal: AbortSignal, key: string): number {
  const counts = counted.get(signal) ?? new Map<string, number>();
  counted.set(signal, counts);
  const count = (counts.get(key) ?? 0) + 1;
  counts.set(key, count);
  return count;
}

/** Tells the running prompt, else the door's observer. */
export function tell(shared: SharedPromptState, options: HostSessionOptions, title: string, message: string): void {
  if (shared.noticeSink) shared.noticeSink('warning', message, title);
  else options.observer?.notice?.('warning', message, title);
}

/**
 * The span of a server's request: below the open call of one of the
 * server's tools (a server asks while its tool runs), else below the
 * running prompt, else a trace of its own. Answers' values stay out of it.
 */
export function requestSpan(session: ACPSession, server: string, name: string, attributes: Attributes): Span {
  const fields = { sessionId: session.id, attributes: { 'crow.mcp.server': server, ...attributes } };
  const open = session.trace.spans.filter((span) => span.end === undefined);
  const tool = `execute_tool mcp__${server.replace(UNSAFE, '_')}__`;
  const parent = open.findLast((span) => span.kind === 'tool' && span.name.startsWith(tool)) ?? open.findLast((span) => span.kind === 'prompt');
  return parent ? session.trace.childOf(parent, 'tool', name, fields) : session.trace.startTrace('tool', name, fields);
}
