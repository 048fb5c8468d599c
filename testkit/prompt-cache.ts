/**
 * Anthropic's prompt cache, simulated so that what Crow's requests would
 * save can be measured (docs: build-with-claude/prompt-caching):
 * - the prompt is one sequence of blocks in the order tools → system →
 *   messages, and a cached entry is the exact prefix up to a block marked
 *   with `cache_control`;
 * - a request reads the longest prefix cached earlier, looking back up to
 *   20 blocks before each of its breakpoints, and writes the prefixes up to
 *   its breakpoints that were not cached;
 * - a prefix shorter than the model's minimum is never cached: 4,096
 *   tokens for Opus 4.5 and 4.6 and Haiku 4.5, 2,048 for Sonnet 4.6 and
 *   Haiku 3 and 3.5, 1,024 for the other models;
 * - changing `tool_choice` or the thinking parameters keeps the tools and
 *   system cached but not the messages;
 * - entries live 5 minutes from their last use, per model.
 * Usage then reads as the API reports it: `input_tokens` after the last
 * breakpoint, `cache_read_input_tokens`, `cache_creation_input_tokens`.
 */
import { createHash } from 'node:crypto';
import { estimateTokens } from './token-estimate';
import { blocksOf, isObject, type RequestBody } from './wire-rules';

const LOOKBACK_BLOCKS = 20;
const TTL_MS = 5 * 60_000;

export interface CacheUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

interface PromptBlock {
  /** The hash of the prompt up to and including this block. */
  prefix: string;
  /** Tokens up to and including this block. */
  tokens: number;
  breakpoint: boolean;
}

export class PromptCache {
  /** Prefix hash → when it expires. */
  private readonly entries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The usage of one request; what its breakpoints mark is cached from now on. */
  account(body: RequestBody): CacheUsage {
    const blocks = promptBlocks(body);
    const total = blocks.at(-1)?.tokens ?? 0;
    const now = this.now();
    const hit = this.longestHit(blocks, now);
    const readTokens = hit >= 0 ? blocks[hit]!.tokens : 0;
    const minimum = minimumTokens(body.model);
    let written = hit;
    blocks.forEach((block, index) => {
      if (!block.breakpoint || index <= hit || block.tokens < minimum) return;
      this.entries.set(block.prefix, now + TTL_MS);
      written = index;
    });
    if (hit >= 0) this.entries.set(blocks[hit]!.prefix, now + TTL_MS);
    const cachedTo = written >= 0 ? blocks[written]!.tokens : 0;
    return { cacheRead: readTokens, cacheWrite: cachedTo - readTokens, input: total - cachedTo };
  }

  /** The index of the last block of the longest live cached prefix a breakpoint reaches, or -1. */
  private longestHit(blocks: PromptBlock[], now: number): number {
    let best = -1;
    blocks.forEach((block, index) => {
      if (!block.breakpoint) return;
      for (let k = index; k >= Math.max(0, index - LOOKBACK_BLOCKS); k--) {
        if ((this.entries.get(blocks[k]!.prefix) ?? 0) > now) {
          best = Math.max(best, k);
          break;
        }
      }
    });
    return best;
  }
}

/** The smallest prefix the model caches (the minimums table of the prompt-caching docs). */
function minimumTokens(model: unknown): number {
  const name = String(model);
  if (/opus-4-[56]|haiku-4-5/.test(name)) return 4_096;
  if (/sonnet-4-6|haiku-3/.test(name)) return 2_048;
  return 1_024;
}

/** The request's blocks in cache order, each with its prefix hash and running token count. */
function promptBlocks(body: RequestBody): PromptBlock[] {
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : blocksOf(body.system);
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  // The parameters that invalidate the message level of the cache enter the hash where the messages start.
  const messageLevel = JSON.stringify({ tool_choice: body.tool_choice ?? null, thinking: body.thinking ?? null });
  const sequence: { key: string; block: unknown }[] = [
    ...tools.map((tool) => ({ key: 'tool', block: tool })),
    ...system.map((block) => ({ key: 'system', block })),
    ...messages.flatMap((message, m) =>
      isObject(message)
        ? blocksOf(message.content).map((block, b) => ({ key: `${m === 0 && b === 0 ? messageLevel : ''}${message.role}:${b === 0 ? 'start' : ''}`, block }))
        : [],
    ),
  ];
  let hash = createHash('sha256').update(String(body.model)).digest('hex');
  let tokens = 0;
  return sequence.map(({ key, block }) => {
    const content = withoutCacheControl(block);
    hash = createHash('sha256').update(hash).update(key).update(JSON.stringify(content)).digest('hex');
    tokens += estimateTokens(content);
    return { prefix: hash, tokens, breakpoint: isObject(block) && block.cache_control !== undefined };
  });
}

function withoutCacheControl(block: unknown): unknown {
  if (!isObject(block) || block.cache_control === undefined) return block;
  const { cache_control: _marker, ...rest } = block;
  return rest;
}
