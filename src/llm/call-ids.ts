/**
 * Tool call ids every provider takes. Servers issue ids in their own shapes
 * (Kimi-K2's parsers give `functions.bash:0`, some local servers reuse
 * `call_0` every turn or send none), while Anthropic refuses a `tool_use.id`
 * outside `^[a-zA-Z0-9_-]+$` and refuses two tool_use blocks with one id
 * (docs.anthropic.com/en/docs/build-with-claude/tool-use; the pattern is in
 * the API's 400 message), and every API pairs a result with its call by id.
 * So ids are made unique when a response arrives (two calls with one id
 * would otherwise run twice and have one result lost), and made valid for
 * every provider when a history is sent (a session stored by an older Crow
 * or begun on another server can always continue).
 */
import type { AssistantBlock, Message, ToolResultItem } from './types';

/** Anthropic's pattern, with OpenAI's 64-character bound for call ids (the Responses API's call_id). */
const SENDABLE_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_ID_LENGTH = 64;

/** `id` as it may be sent: characters outside the pattern become `_`, and it is cut to leave room for a suffix. */
function sendableForm(id: string): string {
  if (SENDABLE_ID.test(id)) return id;
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_ID_LENGTH - 8);
  return cleaned === '' ? 'call' : cleaned;
}

/** `base`, or `base_2`, `base_3`… : the first not in `taken`, which it joins. */
function claim(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base.slice(0, MAX_ID_LENGTH - 1 - String(n).length)}_${n}`;
  taken.add(id);
  return id;
}

/**
 * The response's blocks with each tool call's id valid and unused: not in
 * `taken` (the ids already in the agent's history) nor given to an earlier
 * call of the same response. `taken` gains the ids. The same array when
 * nothing had to change.
 */
export function uniqueCallIds(content: AssistantBlock[], taken: Set<string>): AssistantBlock[] {
  let changed = false;
  const blocks = content.map((block) => {
    if (block.type !== 'tool_call') return block;
    const id = claim(sendableForm(block.id), taken);
    if (id === block.id) return block;
    changed = true;
    return { ...block, id };
  });
  return changed ? blocks : content;
}

/**
 * The history with every call id valid and unique, results renamed with
 * their calls: a result answers the earliest call of the message before it
 * that has its id and is not answered yet (so two calls stored with one id
 * keep both their results). Ids already valid and unique stay as they are,
 * so a history Crow made itself goes out unchanged (and its prompt cache
 * holds). The same array when nothing had to change.
 */
export function sendableCallIds(messages: readonly Message[]): readonly Message[] {
  if (!needsRenaming(messages)) return messages;
  const taken = new Set<string>();
  /** The new ids of the last assistant message's calls, by their stored id, in order. */
  let pending = new Map<string, string[]>();
  return messages.map((message): Message => {
    if (message.role === 'assistant') {
      pending = new Map();
      return {
        role: 'assistant',
        content: message.content.map((block) => {
          if (block.type !== 'tool_call') return block;
          const id = claim(sendableForm(block.id), taken);
          pending.set(block.id, [...(pending.get(block.id) ?? []), id]);
          return id === block.id ? block : { ...block, id };
        }),
      };
    }
    if (message.role === 'tool_results') {
      const results = message.results.map((result): ToolResultItem => {
        const id = pending.get(result.callId)?.shift();
        return id === undefined || id === result.callId ? result : { ...result, callId: id };
      });
      return { role: 'tool_results', results };
    }
    return message;
  });
}

/** Whether any call id is invalid or used twice. */
function needsRenaming(messages: readonly Message[]): boolean {
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_call') continue;
      if (!SENDABLE_ID.test(block.id) || seen.has(block.id)) return true;
      seen.add(block.id);
    }
  }
  return false;
}
