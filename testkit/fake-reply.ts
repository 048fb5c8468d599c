/**
 * Turns a scripted response into what the wire encoders send: chunks and
 * argument fragments cut, ids and signatures generated, usage defaulted, and
 * the output cut where the request's output cap says a real server stops.
 */
import { randomBytes } from 'node:crypto';
import type { ScriptedBlock, ScriptedReply, ScriptedResponse } from './fake-script';
import type { WireBlock, WireFormat, WireReply } from './fake-wire';

const DEFAULT_CHUNK_SIZE = 4;
const DEFAULT_FRAGMENTS = 3;

/**
 * Counters behind generated ids, shared by the APIs of one server. Tool call
 * ids also carry a tag drawn for each server (and each reset): real servers'
 * ids are random, so a call id one server issued never comes back from
 * another, and a session that moves between fakes meets no id twice.
 */
export interface Serials {
  message: number;
  toolCall: number;
  signature: number;
  tag: string;
}

export function newSerials(): Serials {
  return { message: 0, toolCall: 0, signature: 0, tag: randomBytes(6).toString('base64url').replace(/[^a-zA-Z0-9]/g, '').slice(0, 6) || 'fake' };
}

/** Throws on a malformed script. */
export function validateReply(reply: ScriptedReply): void {
  if (reply.kind === 'http_error') return;
  requireInteger('chunkSize', reply.chunkSize, 1);
  if (reply.fault && 'events' in reply.fault) requireInteger('fault.events', reply.fault.events, 0);
  for (const block of reply.blocks) {
    if (block.type === 'tool_call') requireInteger('fragments', block.fragments, 1);
  }
}

function requireInteger(name: string, value: number | undefined, min: number): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= min)) {
    throw new RangeError(`fake LLM server: ${name} must be an integer >= ${min}, got ${value}`);
  }
}

/** What the server read of the request, for the reply's defaults. */
export interface ReadRequest {
  body: Record<string, unknown>;
  /** The prompt's tokens as the server counted them: the input usage unless the script sets it. */
  promptTokens: number;
  /** The output cap the server applies; undefined = none. */
  outputCap: number | undefined;
}

/**
 * The reply with every default decided. Each piece sent (a text or thinking
 * chunk, an argument fragment) counts as one output token: when the output
 * cap is set and the reply is longer, it is cut there, mid-block if need be,
 * and ends with `max_tokens`, as a real server stops at its cap.
 */
export function resolveReply(reply: ScriptedResponse, wire: WireFormat, request: ReadRequest, serials: Serials): WireReply {
  const { outputCap } = request;
  const chunkSize = reply.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const whole = reply.blocks.map((block) => resolveBlock(block, chunkSize, wire, serials));
  const blocks = outputCap === undefined ? whole : cut(whole, outputCap);
  const wasCut = blocks !== whole;
  const usage = reply.usage ?? {};
  const scriptedStop = reply.stopReason ?? (whole.some((block) => block.type === 'tool_call') ? 'tool_use' : 'end_turn');
  return {
    id: `${wire.messageIdPrefix}${++serials.message}`,
    model: reply.model ?? (typeof request.body.model === 'string' ? request.body.model : 'fake-model'),
    blocks,
    stopReason: wasCut ? 'max_tokens' : scriptedStop,
    usage: {
      input: usage.input ?? request.promptTokens,
      output: wasCut ? outputCap! : (usage.output ?? whole.reduce((sum, block) => sum + piecesOf(block).length, 0)),
      cacheRead: usage.cacheRead ?? 0,
      cacheWrite: usage.cacheWrite ?? 0,
      reasoning: usage.reasoning ?? 0,
    },
  };
}

function resolveBlock(block: ScriptedBlock, chunkSize: number, wire: WireFormat, serials: Serials): WireBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', chunks: chunksOf(block.text, chunkSize) };
    case 'thinking':
      return {
        type: 'thinking',
        chunks: chunksOf(block.text, chunkSize),
        signature: block.signature ?? `sig-${++serials.signature}`,
      };
    case 'tool_call': {
      const text = typeof block.arguments === 'string' ? block.arguments : JSON.stringify(block.arguments);
      return {
        type: 'tool_call',
        id: block.id ?? `${wire.toolCallIdPrefix}${serials.tag}${++serials.toolCall}`,
        name: block.name,
        fragments: splitInto(text, block.fragments ?? DEFAULT_FRAGMENTS),
      };
    }
  }
}

/**
 * The first `cap` pieces of the blocks, or the blocks themselves (the same
 * array) when they fit. A thinking block cut short keeps no signature: the
 * server never finished it.
 */
function cut(blocks: WireBlock[], cap: number): WireBlock[] {
  const total = blocks.reduce((sum, block) => sum + piecesOf(block).length, 0);
  if (total <= cap) return blocks;
  const kept: WireBlock[] = [];
  let left = cap;
  for (const block of blocks) {
    if (left === 0) break;
    const pieces = piecesOf(block);
    if (pieces.length <= left) {
      kept.push(block);
      left -= pieces.length;
      continue;
    }
    const head = pieces.slice(0, left);
    left = 0;
    if (block.type === 'tool_call') kept.push({ ...block, fragments: head });
    else if (block.type === 'thinking') kept.push({ ...block, chunks: head, signature: '' });
    else kept.push({ ...block, chunks: head });
  }
  return kept;
}

export function piecesOf(block: WireBlock): string[] {
  return block.type === 'tool_call' ? block.fragments : block.chunks;
}

function chunksOf(text: string | string[], size: number): string[] {
  return typeof text === 'string' ? splitEvery(text, size) : text;
}

/** At most `parts` non-empty pieces of `text`, the last possibly shorter. */
function splitInto(text: string, parts: number): string[] {
  return splitEvery(text, Math.ceil(Array.from(text).length / parts));
}

/** Pieces of `size` code points (never splitting a surrogate pair); none for ''. */
function splitEvery(text: string, size: number): string[] {
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}
