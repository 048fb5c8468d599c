import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
  ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions';
import { FLAVOR_TRAITS, type FlavorTraits, type ServerFlavor } from './openai-flavor';
import { cappedOutput } from './model-capabilities';
import { reasoningDetailsOf, reasoningRequest } from './openrouter-reasoning';

type Echo = Pick<FlavorTraits, 'reasoningEcho' | 'echoesCallExtra' | 'echoesReasoningDetails'>;
const NO_ECHO: Echo = { echoesCallExtra: false };
import type { AssistantBlock, LlmRequest, Message, ToolCallBlock, ToolResultItem, ToolSpec, UserBlock } from './types';

export interface OpenAIFormatOptions {
  model: string;
  /** Which server this is: decides the output cap's field and how a tool-less answer is asked for. */
  flavor: ServerFlavor;
  /** Used when the request sets no maxOutputTokens; absent = the server's default. */
  maxOutputTokens?: number;
  /** The most output tokens the model produces: no cap asked for goes past it. */
  outputCap?: number;
}

/**
 * Translates a provider-neutral request into a streaming Chat Completions
 * call, in the subset that OpenAI-compatible servers (Ollama, LM Studio,
 * vLLM, llama.cpp) also accept, with the fields the flavor's server reads.
 * Thinking is sent back only to a server that requires it (DeepSeek, see
 * FlavorTraits.reasoningEcho): Chat Completions has no field for it.
 */
export function toOpenAIParams(request: LlmRequest, options: OpenAIFormatOptions): ChatCompletionCreateParamsStreaming {
  const traits = FLAVOR_TRAITS[options.flavor];
  const params: ChatCompletionCreateParamsStreaming = {
    model: options.model,
    messages: toOpenAIMessages(request.system, request.messages, traits),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (sentTools(request, options.flavor)) {
    params.tools = request.tools.map(toFunctionTool);
    if (request.toolChoice === 'none') params.tool_choice = 'none';
  }
  const maxOutputTokens = cappedOutput(request.maxOutputTokens ?? options.maxOutputTokens, options.outputCap);
  if (maxOutputTokens !== undefined) params[traits.capField] = maxOutputTokens;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  const reasoning = options.flavor === 'openrouter' ? reasoningRequest(request.thinkingBudget) : undefined;
  if (reasoning) Object.assign(params, { reasoning });
  return params;
}

/** Whether the request goes with its tools: not when it has none, nor when a server that ignores tool_choice must not call them. */
export function sentTools(request: LlmRequest, flavor: ServerFlavor): boolean {
  return request.tools.length > 0 && !(request.toolChoice === 'none' && FLAVOR_TRAITS[flavor].toollessAnswer === 'omit_tools');
}

function toFunctionTool(tool: ToolSpec): ChatCompletionFunctionTool {
  const { name, description, inputSchema } = tool;
  return { type: 'function', function: { name, description, parameters: inputSchema } };
}

/** `echo`: what of the model's own output goes back to this server beyond text and calls (see FlavorTraits). */
export function toOpenAIMessages(system: string, history: Message[], echo: Echo = NO_ECHO): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of history) {
    switch (message.role) {
      case 'user':
        messages.push(userMessage(message.content));
        break;
      case 'assistant': {
        const converted = assistantMessage(message.content, echo);
        if (converted) messages.push(converted);
        break;
      }
      case 'tool_results':
        messages.push(...message.results.map(toolMessage));
        messages.push(...toolImages(message.results));
        break;
    }
  }
  return messages;
}

/** Plain text goes as a string, which every compatible server understands; images need content parts. */
function userMessage(blocks: UserBlock[]): ChatCompletionUserMessageParam {
  if (blocks.every((block) => block.type === 'text')) {
    return { role: 'user', content: blocks.map((block) => block.text).join('\n\n') };
  }
  return { role: 'user', content: blocks.map(contentPart) };
}

function contentPart(block: UserBlock): ChatCompletionContentPart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  return { type: 'image_url', image_url: { url: `data:${block.mimeType};base64,${block.data}` } };
}

/**
 * Undefined when nothing is left to send (a turn that produced only thinking,
 * or nothing): the API rejects an assistant message without content or calls.
 */
function assistantMessage(blocks: AssistantBlock[], echo: Echo): ChatCompletionAssistantMessageParam | undefined {
  const { reasoningEcho } = echo;
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const toolCalls = blocks.flatMap((block) => (block.type === 'tool_call' ? [toolCall(block, echo.echoesCallExtra)] : []));
  if (!text && toolCalls.length === 0) return undefined;
  const message: ChatCompletionAssistantMessageParam = { role: 'assistant', content: text || null };
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls;
    // Empty when the turn had no reasoning (or it came from another provider): the field must be there all the same.
    if (reasoningEcho) Object.assign(message, { [reasoningEcho]: blocks.flatMap((block) => (block.type === 'thinking' ? [block.text] : [])).join('') });
  }
  const details = echo.echoesReasoningDetails ? reasoningDetailsOf(blocks) : undefined;
  if (details) Object.assign(message, { reasoning_details: details });
  return message;
}

function toolCall(block: ToolCallBlock, echoExtra: boolean): ChatCompletionMessageFunctionToolCall {
  const call: ChatCompletionMessageFunctionToolCall = { id: block.id, type: 'function', function: { name: block.name, arguments: block.arguments } };
  return echoExtra && block.extra ? Object.assign(call, { extra_content: block.extra }) : call;
}

/** The tool role has no error flag; the session already labels failed results in their text. */
function toolMessage(result: ToolResultItem): ChatCompletionToolMessageParam {
  return { role: 'tool', tool_call_id: result.callId, content: result.content };
}

/** Tool messages carry text only, so images a tool returned follow in one user message. */
function toolImages(results: ToolResultItem[]): ChatCompletionUserMessageParam[] {
  const parts = results.flatMap((result) =>
    (result.images ?? []).flatMap((image): ChatCompletionContentPart[] => [
      { type: 'text', text: `Image returned by tool call ${result.callId}:` },
      contentPart(image),
    ]),
  );
  return parts.length > 0 ? [{ role: 'user', content: parts }] : [];
}
