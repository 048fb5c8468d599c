/**
 * A history's entries as the provider-neutral messages the model reads:
 * assistant blocks of one turn together, each tool call followed by exactly
 * one result (a call whose result was never recorded gets one that says so;
 * a result without its call is not sent).
 */
import type { AssistantBlock, Message, ToolResultItem } from '../llm/types';
import type { HistoryEntry } from './history';

/** What the model reads for a call whose result was never recorded (a crash or a kill mid-call). */
const MISSING_RESULT = 'No result was recorded for this call: it was interrupted before it finished.';

export function batchMessages(history: readonly HistoryEntry[]): Message[] {
  const messages: Message[] = [];
  let assistant: AssistantBlock[] = [];
  let results: ToolResultItem[] = [];
  /** Calls of the last assistant message still waiting for a result: how many, by id (a server may give two calls one id). */
  const open = new Map<string, number>();

  const flushAssistant = (): void => {
    if (assistant.length === 0) return;
    messages.push({ role: 'assistant', content: assistant });
    assistant = [];
  };
  const flushResults = (): void => {
    for (const [callId, count] of open) {
      for (let i = 0; i < count; i++) results.push({ callId, content: MISSING_RESULT, isError: true });
    }
    open.clear();
    if (results.length === 0) return;
    messages.push({ role: 'tool_results', results });
    results = [];
  };

  for (const entry of history) {
    switch (entry.kind) {
      case 'user':
        flushAssistant();
        flushResults();
        messages.push({ role: 'user', content: entry.content });
        break;
      case 'assistant_text':
      case 'thinking':
      case 'redacted_thinking':
      case 'tool_call':
        if (results.length > 0) {
          flushAssistant();
          flushResults();
        }
        assistant.push(toAssistantBlock(entry));
        if (entry.kind === 'tool_call') open.set(entry.id, (open.get(entry.id) ?? 0) + 1);
        break;
      case 'tool_result':
        // A result without its call (e.g. a call dropped from an errored response) is not sent.
        if (!takeOpen(open, entry.callId)) break;
        flushAssistant();
        results.push({
          callId: entry.callId,
          content: resultText(entry),
          isError: entry.status !== 'success',
          ...(entry.images?.length ? { images: entry.images } : {}),
        });
        break;
      case 'system':
      case 'compaction':
      case 'trim_tool_outputs':
      case 'rewind':
        break;
    }
  }
  flushAssistant();
  flushResults();
  return messages;
}

/** Marks one open call with this id answered; false when none is open. */
function takeOpen(open: Map<string, number>, callId: string): boolean {
  const count = open.get(callId);
  if (count === undefined) return false;
  if (count > 1) open.set(callId, count - 1);
  else open.delete(callId);
  return true;
}

type AssistantEntry = Extract<HistoryEntry, { kind: 'assistant_text' | 'thinking' | 'redacted_thinking' | 'tool_call' }>;

function toAssistantBlock(entry: AssistantEntry): AssistantBlock {
  switch (entry.kind) {
    case 'assistant_text':
      return { type: 'text', text: entry.text };
    case 'thinking':
      return entry.signature !== undefined
        ? { type: 'thinking', text: entry.text, signature: entry.signature }
        : { type: 'thinking', text: entry.text };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: entry.data };
    case 'tool_call':
      return { type: 'tool_call', id: entry.id, name: entry.name, arguments: entry.arguments, ...(entry.extra ? { extra: entry.extra } : {}) };
  }
}

function resultText(entry: Extract<HistoryEntry, { kind: 'tool_result' }>): string {
  if (entry.status === 'success') return entry.output;
  const label = entry.status === 'cancelled' ? 'Cancelled' : 'Error';
  const reason = entry.error ?? 'no reason given';
  return entry.output ? `${label}: ${reason}\n\n${entry.output}` : `${label}: ${reason}`;
}
