/**
 * What makes the fake LLM server as strict as the real APIs: the rules each
 * route applies, the server behaviour of the chosen Chat Completions server
 * (OpenAI or a local one), the output cap each reads, the thinking blocks the
 * server signed, and Anthropic's prompt cache. Refusals are recorded, so a
 * test can tell that nothing was refused behind its back.
 */
import { anthropicWire, type AnthropicUsageReport } from './fake-anthropic-wire';
import { openaiWire } from './fake-openai-wire';
import { outputItemId, responsesWire } from './fake-responses-wire';
import { type IssuedCall, responsesPromptTokens, responsesRules } from './responses-rules';
import type { WireFormat, WireReply } from './fake-wire';
import { anthropicRules, promptTokens } from './anthropic-rules';
import { CHAT_SERVER_PROFILES, chatPromptTokens, type ChatServerName, type ChatServerProfile } from './chat-servers';
import { ANTHROPIC_HEADER_RULES, type HeaderRule, OPENAI_HEADER_RULES } from './header-rules';
import { PromptCache } from './prompt-cache';
import { randomBytes } from 'node:crypto';
import { AZURE_HEADER_RULES, AZURE_REQUEST_LINE_RULES } from './azure-rules';
import { OPENROUTER_HEADER_RULES } from './openrouter-rules';
import type { IncomingHttpHeaders } from 'node:http';
import { firstBroken, type RecordedRefusal, type Refusal, type RequestBody, type WireRule } from './wire-rules';

/** The routes: Chat Completions, Anthropic Messages, and OpenAI's Responses API. */
export type FakeApi = 'openai' | 'anthropic' | 'openai-responses';

const ANTHROPIC_CONTEXT_WINDOW = 200_000;
/** gpt-5's window (platform.openai.com/docs/models). */
const RESPONSES_CONTEXT_WINDOW = 400_000;

export interface StrictWireOptions {
  /**
   * Rules this server lets through, by name (e.g. "anthropic/tool-blocks-need-tools"):
   * a test that sends a malformed request on purpose says which rule it breaks.
   */
  allowBroken?: readonly string[];
  /** The server answering on the Chat Completions route. Default: OpenAI itself. */
  chatServer?: ChatServerName;
  /** Where the Messages route's streams report usage (see AnthropicUsageReport). Default: as Anthropic's API does. */
  anthropicUsage?: AnthropicUsageReport;
  /** The context window of both routes, in the fake's tokens. Default: 200,000 (Anthropic) and the chat server's own. */
  contextWindow?: number;
  /** Report Anthropic prompt-cache reads and writes computed from the requests (scripted usage still wins). */
  promptCache?: boolean;
  /**
   * What the chat route's usage counts of the prompt: 'whole' (default, as
   * the servers document prompt_tokens), or 'uncached': only the tokens past
   * the messages it kept from the previous request, as Ollama 0.30's
   * llama-server runner reported them (ollama/ollama#16414, fixed by #16428:
   * "llama-server reports newly processed prompt tokens separately from
   * cached prompt tokens"). Scripted usage still wins.
   */
  promptCount?: 'whole' | 'uncached';
  /**
   * The API keys this server accepts; any other key is refused as the real
   * APIs refuse a wrong one (see keyRefusal). Default: any key (only its
   * presence is checked).
   */
  apiKeys?: readonly string[];
}

/** What the server does with a request before it plays a scripted reply. */
export type Admission =
  | { kind: 'refused'; refusal: Refusal }
  /**
   * `promptTokens`: what the server read, after any messages it dropped to
   * fit its window (Ollama); `uncachedTokens`: what it reports instead, when
   * it counts only what it had not cached (see promptCount).
   */
  | { kind: 'admitted'; promptTokens: number; uncachedTokens?: number };

export class StrictWire {
  readonly refusals: RecordedRefusal[] = [];
  readonly chatServer: ChatServerProfile;
  readonly wires: Record<FakeApi, WireFormat>;
  private readonly allowed: ReadonlySet<string>;
  private readonly apiKeys: readonly string[] | undefined;
  private readonly issuedThinking = new Map<string, string>();
  /** Call id → the thought signature this server put on it (a server that signs calls). */
  private readonly issuedCallSignatures = new Map<string, string>();
  private readonly issuedCalls = new Map<string, IssuedCall>();
  /** Chat Completions tool calls sent after signed reasoning: the signature, by call id. */
  private readonly signedCalls = new Map<string, string>();
  private rules!: Record<FakeApi, WireRule[]>;
  private chatWindow!: number;
  private readonly cache: PromptCache | undefined;
  /** The chat route's last admitted messages, when it counts only what it had not cached. */
  private chatPrefix: ChatPrefix | undefined;

  constructor(options: StrictWireOptions = {}) {
    this.allowed = new Set(options.allowBroken ?? []);
    this.apiKeys = options.apiKeys;
    this.chatServer = CHAT_SERVER_PROFILES[options.chatServer ?? 'openai'];
    this.setContextWindow(options.contextWindow);
    this.wires = { anthropic: anthropicWire(options.anthropicUsage), openai: openaiWire(this.chatServer), 'openai-responses': responsesWire };
    this.cache = options.promptCache ? new PromptCache() : undefined;
    this.chatPrefix = options.promptCount === 'uncached' ? new ChatPrefix() : undefined;
  }

  /** The context window of both routes from now on, as if the server were restarted with it; undefined: the defaults. */
  setContextWindow(tokens: number | undefined): void {
    this.chatWindow = tokens ?? this.chatServer.defaultContextWindow;
    this.rules = {
      anthropic: anthropicRules({ contextWindow: tokens ?? ANTHROPIC_CONTEXT_WINDOW, issuedThinking: this.issuedThinking }),
      openai: this.chatServer.rules(this.chatWindow, { signedCalls: this.signedCalls, issuedCallSignatures: this.issuedCallSignatures }),
      'openai-responses': responsesRules({ contextWindow: tokens ?? RESPONSES_CONTEXT_WINDOW, issuedCalls: this.issuedCalls }),
    };
  }

  /**
   * Applies the route's header rules (credentials, the API version) to a
   * request, or to `GET /v1/models` on the Chat Completions server; a
   * refusal is recorded. Only OpenAI itself asks for a key there.
   */
  authorize(api: FakeApi, headers: IncomingHttpHeaders): Refusal | undefined {
    const rules = this.headerRules(api);
    for (const rule of rules) {
      if (this.allowed.has(rule.name)) continue;
      const refusal = rule.check(headers);
      if (!refusal) continue;
      this.refusals.push({ rule: rule.name, api, refusal });
      return refusal;
    }
    const wrongKey = this.apiKeys && keyRefusal(api, headers, this.apiKeys);
    if (wrongKey) this.refusals.push({ rule: `${api}/wrong-key`, api, refusal: wrongKey });
    return wrongKey || undefined;
  }

  private headerRules(api: FakeApi): readonly HeaderRule[] {
    if (api === 'anthropic') return ANTHROPIC_HEADER_RULES;
    if (api === 'openai' && this.chatServer.name === 'azure') return AZURE_HEADER_RULES;
    if (api === 'openai' && this.chatServer.name === 'openrouter') return OPENROUTER_HEADER_RULES;
    return api === 'openai-responses' || this.chatServer.name === 'openai' ? OPENAI_HEADER_RULES : [];
  }

  /**
   * Applies the rules of the request line (path and query) of a Chat
   * Completions request to Azure, whose resource has `deployments`; a
   * refusal is recorded. Other servers have none.
   */
  checkRequestLine(api: FakeApi, path: string, query: URLSearchParams, deployments: readonly string[]): Refusal | undefined {
    if (api !== 'openai' || this.chatServer.name !== 'azure') return undefined;
    for (const rule of AZURE_REQUEST_LINE_RULES) {
      if (this.allowed.has(rule.name)) continue;
      const refusal = rule.check(path, query, deployments);
      if (!refusal) continue;
      this.refusals.push({ rule: rule.name, api, refusal });
      return refusal;
    }
    return undefined;
  }

  /** Applies the route's rules (after what the server does to fit its window); a refusal is recorded. */
  admit(api: FakeApi, body: RequestBody): Admission {
    const judged = api === 'openai' && this.chatServer.fitToWindow ? this.chatServer.fitToWindow(body, this.chatWindow) : body;
    const broken = firstBroken(this.rules[api], judged, this.allowed);
    if (broken) {
      this.refusals.push({ rule: broken.rule.name, api, refusal: broken.refusal });
      return { kind: 'refused', refusal: broken.refusal };
    }
    if (api === 'anthropic') return { kind: 'admitted', promptTokens: promptTokens(judged) };
    if (api === 'openai-responses') return { kind: 'admitted', promptTokens: responsesPromptTokens(judged) };
    return { kind: 'admitted', promptTokens: chatPromptTokens(judged), ...(this.chatPrefix ? { uncachedTokens: this.chatPrefix.uncached(judged) } : {}) };
  }

  /** The output cap the route's server applies to the request. */
  outputCap(api: FakeApi, body: RequestBody): number | undefined {
    if (api === 'anthropic') return typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
    if (api === 'openai-responses') return typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
    return this.chatServer.outputCap(body);
  }

  /**
   * Final touches to a reply about to be sent: the thinking it signs is
   * remembered (to check it comes back unchanged), as are the Responses
   * function calls that followed a reasoning item (to check the item comes
   * back with them), and unless the script
   * set the input usage, Anthropic's is split by the prompt cache when it
   * is simulated.
   */
  settle(api: FakeApi, body: RequestBody, reply: WireReply, inputScripted: boolean): void {
    for (const block of reply.blocks) {
      if (block.type === 'thinking' && block.signature) this.issuedThinking.set(block.signature, block.chunks.join(''));
    }
    if (api === 'openai-responses') this.rememberCalls(reply);
    if (api === 'openai') this.rememberSignedCalls(reply);
    // Gemini signs the first function call of each answer.
    const firstCall = reply.blocks.find((block) => block.type === 'tool_call');
    if (api === 'openai' && this.chatServer.streaming.signsToolCalls && firstCall?.type === 'tool_call') {
      firstCall.signature = `gts-${firstCall.id}-${randomBytes(6).toString('base64url')}`;
      this.issuedCallSignatures.set(firstCall.id, firstCall.signature);
    }
    if (api === 'anthropic' && this.cache && !inputScripted) Object.assign(reply.usage, this.cache.account(body));
  }

  /** The function calls of a Responses reply that a reasoning item went before, by call_id. */
  private rememberCalls(reply: WireReply): void {
    let reasoningId: string | undefined;
    reply.blocks.forEach((block, index) => {
      if (block.type === 'thinking') reasoningId = outputItemId(reply, index, block);
      else if (block.type === 'tool_call' && reasoningId) this.issuedCalls.set(block.id, { itemId: outputItemId(reply, index, block), reasoningId });
    });
  }

  /** The tool calls of a Chat Completions reply that signed reasoning went before, by id. */
  private rememberSignedCalls(reply: WireReply): void {
    let signature = '';
    for (const block of reply.blocks) {
      if (block.type === 'thinking') signature = block.signature;
      else if (block.type === 'tool_call' && signature) this.signedCalls.set(block.id, signature);
    }
  }

  /** Forgets the recorded refusals, returning them. */
  takeRefusals(): RecordedRefusal[] {
    return this.refusals.splice(0);
  }
}

/**
 * A chat server's kept prompt: the messages of its last request. A request
 * that starts with the same messages reuses them (llama.cpp's server and
 * Ollama keep the evaluated prefix of one conversation); what comes after
 * is evaluated anew.
 */
class ChatPrefix {
  private last: string[] = [];

  /** The tokens of `body` past the messages it shares with the last request (the tools and system prompt are evaluated with the first). */
  uncached(body: RequestBody): number {
    const messages = (Array.isArray(body.messages) ? body.messages : []).map((message) => JSON.stringify(message));
    let shared = 0;
    while (shared < messages.length && shared < this.last.length && messages[shared] === this.last[shared]) shared++;
    this.last = messages;
    if (shared === 0) return chatPromptTokens(body);
    const fresh = (body.messages as unknown[]).slice(shared);
    return Math.max(1, chatPromptTokens({ messages: fresh }));
  }
}

/**
 * A key the server does not know, refused as the real APIs refuse it: 401
 * on every route, models list included. Anthropic: `authentication_error`,
 * "invalid x-api-key" (docs.anthropic.com/en/api/errors: 401
 * authentication_error "There's an issue with your API key"; the message as
 * the API sends it, e.g. anthropics/anthropic-sdk-python#600). OpenAI:
 * `invalid_api_key`, "Incorrect API key provided" (platform.openai.com/docs/guides/error-codes:
 * 401 "Invalid Authentication" / "Incorrect API key provided").
 */
function keyRefusal(api: FakeApi, headers: IncomingHttpHeaders, keys: readonly string[]): Refusal | undefined {
  const bearer = /^Bearer\s+(\S+)/i.exec(headers.authorization ?? '')?.[1];
  const given = api === 'anthropic' ? (typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : bearer) : bearer;
  if (given !== undefined && keys.includes(given)) return undefined;
  if (api === 'anthropic') return { status: 401, type: 'authentication_error', message: 'invalid x-api-key' };
  return { status: 401, type: 'invalid_request_error', message: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.', code: 'invalid_api_key', param: null };
}
