/**
 * What the Anthropic Messages API refuses, as rules of the strict fake
 * server. Messages are the API's own wording; each rule cites where it is
 * documented or where a public report quotes the server's answer.
 */
import { imageSize } from './image-size';
import { estimateTokens } from './token-estimate';
import { blocksOf, invalidRequest, isObject, type Refusal, type RequestBody, type WireRule } from './wire-rules';

const DOCS = 'https://docs.claude.com/en';
const TOOL_USE_DOCS = `${DOCS}/docs/agents-and-tools/tool-use/implement-tool-use`;
const THINKING_DOCS = `${DOCS}/docs/build-with-claude/extended-thinking`;
const VISION_DOCS = `${DOCS}/docs/build-with-claude/vision`;
const MESSAGES_API = `${DOCS}/api/messages`;

/** Since mid-2025; 64 before (home-assistant/core#147760 quotes the 128 pattern). */
const MAX_TOOL_NAME = 128;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const MIN_THINKING_BUDGET = 1024;
const MAX_CACHE_BREAKPOINTS = 4;
/** Of one image's base64 text (gptme/gptme#185 and anthropics/claude-code#19631 quote the refusal). */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images and document pages in one request (anthropics/claude-code#3397, #19822). */
const MAX_MEDIA = 100;
/** Longest image side; over 20 images in a request, 2000 (anthropics/claude-code#4778, #9375). */
const MAX_IMAGE_SIDE = 8000;
const MAX_IMAGE_SIDE_MANY = 2000;
const MANY_IMAGES = 20;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const TOOL_CHOICE_TYPES = ['auto', 'any', 'tool', 'none'];
/** The "Max output" of the models tests name, by id prefix (docs.claude.com/en/docs/about-claude/models/overview). */
const OUTPUT_CAPS: readonly (readonly [string, number])[] = [
  ['claude-opus-4-6', 128_000],
  ['claude-opus-4-1', 32_000],
  ['claude-sonnet-4', 64_000],
  ['claude-haiku-4-5', 64_000],
  ['claude-3-5-haiku', 8_192],
];

/** What the rules need to know beyond the request: the server's window and the thinking it handed out. */
export interface AnthropicRuleContext {
  /** Tokens of prompt the model takes (by the fake's estimate). */
  contextWindow: number;
  /** Signature → thinking text of every thinking block this server sent. */
  issuedThinking: ReadonlyMap<string, string>;
}

type Message = { role: unknown; content: Record<string, any>[]; index: number };

/** The messages as the API reads them: consecutive turns of one role are combined into one. */
function turnsOf(body: RequestBody): Message[] {
  const turns: Message[] = [];
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  messages.forEach((message, index) => {
    if (!isObject(message)) return;
    const previous = turns[turns.length - 1];
    if (previous && previous.role === message.role) previous.content.push(...blocksOf(message.content));
    else turns.push({ role: message.role, content: blocksOf(message.content), index });
  });
  return turns;
}

function rule(name: string, source: string, check: (body: RequestBody) => Refusal | undefined): WireRule {
  return { name: `anthropic/${name}`, source, check };
}

function each<T>(items: T[], check: (item: T, index: number) => Refusal | undefined): Refusal | undefined {
  for (let i = 0; i < items.length; i++) {
    const refusal = check(items[i]!, i);
    if (refusal) return refusal;
  }
  return undefined;
}

/** Every block of every message, with its position as the API names it. */
function allBlocks(body: RequestBody): { block: Record<string, any>; path: string; role: unknown }[] {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  return messages.flatMap((message, m) =>
    isObject(message) ? blocksOf(message.content).map((block, b) => ({ block, path: `messages.${m}.content.${b}`, role: message.role })) : [],
  );
}

function toolUseIds(message: Message): string[] {
  return message.content.filter((block) => block.type === 'tool_use').map((block) => String(block.id));
}

function thinkingEnabled(body: RequestBody): boolean {
  return isObject(body.thinking) && body.thinking.type === 'enabled';
}

const schema: WireRule[] = [
  rule('model-required', MESSAGES_API, (body) =>
    typeof body.model === 'string' && body.model !== '' ? undefined : invalidRequest('model: Field required'),
  ),
  // max_tokens 0 is allowed: it fills the prompt cache without generating (the SDK's doc of the field).
  rule('max-tokens-required', 'tickernelz/opencode-mem#50 quotes the refusal', (body) =>
    Number.isInteger(body.max_tokens) && body.max_tokens >= 0 ? undefined : invalidRequest('max_tokens: Field required'),
  ),
  // The caps are the models overview's; SWE-agent/SWE-agent#1041 and avante-corp/avante.nvim#1761 report the refusal past them.
  rule('max-tokens-model-cap', 'https://docs.claude.com/en/docs/about-claude/models/overview', (body) => {
    const cap = typeof body.model === 'string' ? OUTPUT_CAPS.find(([prefix]) => body.model.startsWith(prefix))?.[1] : undefined;
    return cap !== undefined && body.max_tokens > cap
      ? invalidRequest(`max_tokens: ${body.max_tokens} > ${cap}, which is the maximum allowed number of output tokens for ${body.model}`)
      : undefined;
  }),
  rule('messages-required', MESSAGES_API, (body) =>
    Array.isArray(body.messages) && body.messages.length > 0
      ? undefined
      : invalidRequest('messages: at least one message is required'),
  ),
  rule('roles', MESSAGES_API, (body) =>
    each(body.messages as unknown[], (message, m) =>
      isObject(message) && (message.role === 'user' || message.role === 'assistant')
        ? undefined
        : invalidRequest(`messages.${m}.role: Input should be 'user' or 'assistant'`),
    ),
  ),
];

const content: WireRule[] = [
  rule('text-non-empty', MESSAGES_API, (body) => {
    const system = typeof body.system === 'string' ? [] : blocksOf(body.system);
    if (system.some((block) => block.type === 'text' && block.text === '')) return invalidRequest('system: text content blocks must be non-empty');
    return allBlocks(body).some(({ block }) => block.type === 'text' && block.text === '')
      ? invalidRequest('messages: text content blocks must be non-empty')
      : undefined;
  }),
  rule('text-non-whitespace', MESSAGES_API, (body) =>
    allBlocks(body).some(({ block }) => block.type === 'text' && typeof block.text === 'string' && block.text.trim() === '' && block.text !== '')
      ? invalidRequest('messages: text content blocks must contain non-whitespace text')
      : undefined,
  ),
  rule('content-non-empty', MESSAGES_API, (body) => {
    const messages = body.messages as Record<string, any>[];
    return each(messages, (message, m) => {
      const finalAssistant = m === messages.length - 1 && message.role === 'assistant';
      const empty = message.content === '' || (Array.isArray(message.content) && message.content.length === 0);
      return empty && !finalAssistant
        ? invalidRequest(`messages.${m}: all messages must have non-empty content except for the optional final assistant message`)
        : undefined;
    });
  }),
  rule('final-assistant-trailing-whitespace', MESSAGES_API, (body) => {
    const last = (body.messages as Record<string, any>[]).at(-1);
    if (last?.role !== 'assistant') return undefined;
    const text = blocksOf(last.content).at(-1);
    return text?.type === 'text' && /\s$/.test(String(text.text))
      ? invalidRequest('messages: final assistant content cannot end with trailing whitespace')
      : undefined;
  }),
];

const images: WireRule[] = [
  rule('image-media-type', VISION_DOCS, (body) =>
    each(imagesOf(body), ({ block, path }) =>
      block.source?.type === 'base64' && !IMAGE_TYPES.includes(block.source.media_type)
        ? invalidRequest(`${path}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`)
        : undefined,
    ),
  ),
  rule('image-size', 'gptme/gptme#185, anthropics/claude-code#19631 quote the refusal', (body) =>
    each(imagesOf(body), ({ block, path }) => {
      const size = typeof block.source?.data === 'string' ? block.source.data.length : 0;
      return size > MAX_IMAGE_BYTES
        ? invalidRequest(`${path}.image.source.base64: image exceeds 5 MB maximum: ${size} bytes > ${MAX_IMAGE_BYTES} bytes`)
        : undefined;
    }),
  ),
  rule('image-dimensions', 'anthropics/claude-code#4778 (8000 px), #9375 (2000 px past 20 images) quote the refusals', (body) => {
    const all = imagesOf(body);
    const many = all.length > MANY_IMAGES;
    const limit = many ? MAX_IMAGE_SIDE_MANY : MAX_IMAGE_SIDE;
    return each(all, ({ block, path }) => {
      const size = typeof block.source?.data === 'string' ? imageSize(block.source.data) : undefined;
      if (!size || Math.max(size.width, size.height) <= limit) return undefined;
      return invalidRequest(
        `${path}.image.source.base64.data: At least one of the image dimensions exceed max allowed size${many ? ' for many-image requests' : ''}: ${limit} pixels`,
      );
    });
  }),
  rule('media-count', 'anthropics/claude-code#3397, #19822 quote the refusal', (body) => {
    const count = imagesOf(body).length;
    return count > MAX_MEDIA ? invalidRequest(`Too much media: 0 document pages + ${count} images > ${MAX_MEDIA}`) : undefined;
  }),
];

/** Image blocks, those nested in tool results included. */
function imagesOf(body: RequestBody): { block: Record<string, any>; path: string }[] {
  return allBlocks(body).flatMap(({ block, path }) => {
    if (block.type === 'image') return [{ block, path }];
    if (block.type !== 'tool_result') return [];
    return blocksOf(block.content)
      .map((inner, i) => ({ block: inner, path: `${path}.content.${i}` }))
      .filter(({ block: inner }) => inner.type === 'image');
  });
}

const tools: WireRule[] = [
  rule('tool-name', 'home-assistant/core#147760 (pattern), anthropics/claude-code#96152 (length) quote the refusals', (body) =>
    each(Array.isArray(body.tools) ? body.tools : [], (tool: Record<string, any>, t) => {
      const name = typeof tool.name === 'string' ? tool.name : '';
      if (name.length > MAX_TOOL_NAME) return invalidRequest(`tools.${t}.custom.name: String should have at most ${MAX_TOOL_NAME} characters`);
      return TOOL_NAME.test(name) ? undefined : invalidRequest(`tools.${t}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    }),
  ),
  rule('tool-names-unique', 'anthropics/claude-code#14159 quotes the refusal', (body) => {
    const names = (Array.isArray(body.tools) ? body.tools : []).map((tool: Record<string, any>) => tool.name);
    return new Set(names).size === names.length ? undefined : invalidRequest('tools: Tool names must be unique.');
  }),
  rule('tool-choice-shape', TOOL_USE_DOCS, (body) => {
    const choice = body.tool_choice;
    if (choice === undefined) return undefined;
    if (!isObject(choice) || !TOOL_CHOICE_TYPES.includes(choice.type)) {
      return invalidRequest(`tool_choice: Input tag '${isObject(choice) ? choice.type : choice}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`);
    }
    if (choice.type === 'tool' && typeof choice.name !== 'string') return invalidRequest('tool_choice.tool.name: Field required');
    const names = (Array.isArray(body.tools) ? body.tools : []).map((tool: Record<string, any>) => tool.name);
    if (choice.type === 'tool' && !names.includes(choice.name)) {
      return invalidRequest(`tool_choice.tool.name: Tool '${choice.name}' not found in provided tools`);
    }
    return undefined;
  }),
  // Even when every block is paired. Bedrock refuses the same shape ("The toolConfig field must be defined…", langgenius/dify#17545).
  rule('tool-blocks-need-tools', 'anthropics/anthropic-sdk-python#494 quotes the refusal', (body) => {
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    const toolBlock = allBlocks(body).some(({ block }) => block.type === 'tool_use' || block.type === 'tool_result');
    return toolBlock && !hasTools ? invalidRequest('Requests which include tool_use or tool_result blocks must define tools.') : undefined;
  }),
  rule('tool-use-id-pattern', 'CommandCodeAI/command-code#323, BlockRunAI/ClawRouter#17 quote the refusal', (body) =>
    each(allBlocks(body).filter(({ block }) => block.type === 'tool_use'), ({ block, path }) =>
      typeof block.id === 'string' && TOOL_USE_ID.test(block.id) ? undefined : invalidRequest(`${path}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`),
    ),
  ),
  rule('tool-use-ids-unique', TOOL_USE_DOCS, (body) => {
    const seen = new Set<string>();
    return each(allBlocks(body).filter(({ block }) => block.type === 'tool_use'), ({ block, path }) => {
      if (seen.has(block.id)) return invalidRequest(`${path}: \`tool_use\` ids must be unique`);
      seen.add(block.id);
      return undefined;
    });
  }),
  // The results must open the next user message: a text before them gets the same answer (QwenLM/qwen-code#8161, tested live).
  rule('tool-use-answered', 'anthropics/claude-code#3512, #5989 quote the refusal', (body) => {
    const turns = turnsOf(body);
    return each(turns, (turn, t) => {
      const ids = turn.role === 'assistant' ? toolUseIds(turn) : [];
      if (ids.length === 0) return undefined;
      const next = turns[t + 1];
      const answered = new Set(leadingResults(next).map((block) => String(block.tool_use_id)));
      const missing = ids.filter((id) => !answered.has(id));
      return missing.length > 0
        ? invalidRequest(
            `messages.${turn.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
              'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
          )
        : undefined;
    });
  }),
  rule('tool-result-has-use', 'router-for-me/CLIProxyAPI#497, anthropics/claude-code#13460 quote the refusal', (body) => {
    const turns = turnsOf(body);
    return each(turns, (turn, t) => {
      if (turn.role !== 'user') return undefined;
      const previous = turns[t - 1];
      const called = new Set(previous?.role === 'assistant' ? toolUseIds(previous) : []);
      return each(turn.content, (block, b) =>
        block.type === 'tool_result' && !called.has(String(block.tool_use_id))
          ? invalidRequest(
              `messages.${turn.index}.content.${b}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. ` +
                'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
            )
          : undefined,
      );
    });
  }),
];

/** The tool_result blocks a user turn opens with. */
function leadingResults(turn: Message | undefined): Record<string, any>[] {
  if (turn?.role !== 'user') return [];
  const end = turn.content.findIndex((block) => block.type !== 'tool_result');
  return end < 0 ? turn.content : turn.content.slice(0, end);
}

const thinking: WireRule[] = [
  // The first-party wording is not quoted anywhere public; this is Bedrock's (danny-avila/LibreChat#8346), the same validator.
  rule('thinking-budget-min', THINKING_DOCS, (body) =>
    thinkingEnabled(body) && !(body.thinking.budget_tokens >= MIN_THINKING_BUDGET)
      ? invalidRequest(`thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`)
      : undefined,
  ),
  rule('thinking-budget-below-max-tokens', 'ProfSynapse/nexus#17 quotes the refusal', (body) =>
    thinkingEnabled(body) && !(body.max_tokens > body.thinking.budget_tokens)
      ? invalidRequest(`\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${THINKING_DOCS}#max-tokens-and-context-window-size`)
      : undefined,
  ),
  rule('thinking-temperature', 'MartialBE/one-hub#529 quotes the refusal', (body) =>
    thinkingEnabled(body) && body.temperature !== undefined && body.temperature !== 1
      ? invalidRequest(`\`temperature\` may only be set to 1 when thinking is enabled. Please consult our documentation at ${THINKING_DOCS}#feature-compatibility`)
      : undefined,
  ),
  rule('thinking-forced-tool', 'mastra-ai/mastra#7507 quotes the refusal', (body) =>
    thinkingEnabled(body) && (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool')
      ? invalidRequest('Thinking may not be enabled when tool_choice forces tool use.')
      : undefined,
  ),
  rule('thinking-leads-tool-loop', 'Kilo-Org/kilocode#5219, deepset-ai/haystack-core-integrations#2146 quote the refusal', (body) => {
    if (!thinkingEnabled(body)) return undefined;
    const turns = turnsOf(body);
    const assistant = lastToolLoopAssistant(turns);
    const first = assistant?.content[0];
    if (!assistant || first?.type === 'thinking' || first?.type === 'redacted_thinking') return undefined;
    return invalidRequest(
      `messages.${assistant.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type}\`. ` +
        'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
        'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
        `Please consult our documentation at ${THINKING_DOCS}`,
    );
  }),
  rule('thinking-disabled-final-assistant', 'tailcallhq/forgecode#1853 quotes the refusal', (body) => {
    const messages = body.messages as Record<string, any>[];
    const last = messages.at(-1);
    const thinkingBlock = last?.role === 'assistant' && blocksOf(last.content).some((block) => block.type === 'thinking' || block.type === 'redacted_thinking');
    return !thinkingEnabled(body) && thinkingBlock
      ? invalidRequest(
          `messages.${messages.length - 1}.content.0: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. ` +
            'To use thinking blocks, enable `thinking` in your request.',
        )
      : undefined;
  }),
];

/**
 * The assistant turn of the tool loop still under way, if any: the last
 * assistant turn, when it made tool calls and the user turn after it (the
 * last) opens with their results.
 */
function lastToolLoopAssistant(turns: Message[]): Message | undefined {
  const last = turns.at(-1);
  const previous = turns.at(-2);
  if (last?.role !== 'user' || previous?.role !== 'assistant') return undefined;
  if (last.content[0]?.type !== 'tool_result') return undefined;
  return toolUseIds(previous).length > 0 ? previous : undefined;
}

function cacheBreakpoints(body: RequestBody): number {
  const marked = (blocks: unknown[]): number => blocks.filter((block) => isObject(block) && block.cache_control !== undefined).length;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const system = typeof body.system === 'string' ? [] : blocksOf(body.system);
  const nested = allBlocks(body).flatMap(({ block }) => (block.type === 'tool_result' ? blocksOf(block.content) : []));
  return marked(tools) + marked(system) + marked(allBlocks(body).map(({ block }) => block)) + marked(nested);
}

/** The rules that depend on what the server knows: its window and the thinking blocks it sent. */
function stateful(context: AnthropicRuleContext): WireRule[] {
  return [
    rule('cache-control-limit', 'tghamm/Anthropic.SDK#50 quotes the refusal', (body) => {
      const found = cacheBreakpoints(body);
      return found > MAX_CACHE_BREAKPOINTS
        ? invalidRequest(`A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`)
        : undefined;
    }),
    // A block that differs in any way from what the API sent fails (anthropics/anthropic-sdk-python#1598, a maintainer).
    rule('thinking-signature', 'anthropics/claude-code#10627 (invalid), #26542 (missing) quote the refusals', (body) =>
      each(allBlocks(body).filter(({ block, role }) => role === 'assistant' && block.type === 'thinking'), ({ block, path }) => {
        if (typeof block.signature !== 'string') return invalidRequest(`${path}.thinking.signature: Field required`);
        return context.issuedThinking.get(block.signature) === block.thinking
          ? undefined
          : invalidRequest(`${path}: Invalid \`signature\` in \`thinking\` block`);
      }),
    ),
    rule('context-window', 'boldsoftware/exe.dev#62, anthropics/claude-code#62560 quote the refusal', (body) => {
      const tokens = promptTokens(body);
      return tokens > context.contextWindow
        ? invalidRequest(`prompt is too long: ${tokens} tokens > ${context.contextWindow} maximum`)
        : undefined;
    }),
  ];
}

/** The prompt's tokens by the fake's estimate: tools, system and messages. */
export function promptTokens(body: RequestBody): number {
  return estimateTokens([body.tools ?? [], body.system ?? '', body.messages ?? []]);
}

/** Every rule of the Messages API, in the order the server checks them (shape before meaning). */
export function anthropicRules(context: AnthropicRuleContext): WireRule[] {
  return [...schema, ...content, ...images, ...tools, ...thinking, ...stateful(context)];
}
