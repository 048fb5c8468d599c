import { type AssistantBlock, type AssistantResponse, costOf, type LlmRequest, type ModelPricing } from '../llm/types';
import type { Attributes } from './span';
import { clipCounted } from '../vocabulary/text';

/** OpenTelemetry gen_ai attributes of an LLM call, set when it starts. */
export function llmRequestAttributes(providerName: string, requestModel: string): Attributes {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': providerName,
    'gen_ai.request.model': requestModel,
  };
}

/**
 * Attributes of a finished LLM call. `gen_ai.usage.input_tokens` counts
 * every input token, cached ones included, as the semantic conventions do.
 */
export function llmResponseAttributes(response: AssistantResponse, pricing: ModelPricing | undefined): Attributes {
  const { usage } = response;
  const attributes: Attributes = {
    'gen_ai.response.finish_reasons': response.finishReasons,
    'gen_ai.usage.input_tokens': usage.input + usage.cacheRead + usage.cacheWrite,
    'gen_ai.usage.output_tokens': usage.output,
    'gen_ai.usage.cache_read.input_tokens': usage.cacheRead,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheWrite,
    'gen_ai.usage.reasoning.output_tokens': usage.reasoning,
    'crow.stop_reason': response.stopReason,
  };
  if (response.responseModel !== undefined) attributes['gen_ai.response.model'] = response.responseModel;
  if (response.timeToFirstTokenMs !== undefined) attributes['crow.time_to_first_token_ms'] = response.timeToFirstTokenMs;
  if (pricing) attributes['crow.cost_usd'] = costOf(usage, pricing);
  const said = response.content.map(contentText).filter((text) => text !== '');
  if (said.length > 0) attributes['crow.response.content'] = clipCounted(said.join('\n\n'), MAX_CONTENT_CHARS);
  if (response.errorMessage !== undefined) attributes['crow.error'] = response.errorMessage;
  return attributes;
}

/** Longest message text kept on a span: enough to see what happened, small enough for 10,000-span traces. */
const MAX_CONTENT_CHARS = 4_000;

/** What a request asked, for the trace: the system prompt and the newest message. */
export function llmPromptAttributes(request: LlmRequest): Attributes {
  const last = request.messages.at(-1);
  const lastText =
    last === undefined
      ? ''
      : last.role === 'tool_results'
        ? last.results.map((r) => `[result ${r.callId}${r.isError ? ', error' : ''}] ${r.content}`).join('\n')
        : last.content.map((block) => ('text' in block ? block.text : block.type === 'image' ? '[image]' : contentText(block))).join('\n');
  return {
    'crow.request.system': clipCounted(request.system, MAX_CONTENT_CHARS),
    'crow.request.messages': request.messages.length,
    'crow.request.last_message': clipCounted(lastText, MAX_CONTENT_CHARS),
  };
}

function contentText(block: AssistantBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'thinking':
      return block.text ? `[thinking] ${block.text}` : '';
    case 'redacted_thinking':
      return '[thinking, redacted by the provider]';
    case 'tool_call':
      return `[call ${block.name}] ${block.arguments}`;
  }
}

/** Longest argument text kept on a tool span. */
const MAX_ARGUMENT_CHARS = 4_000;

export function toolRequestAttributes(tool: string, callId: string, rawArguments: string): Attributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'gen_ai.tool.call.id': callId,
    'gen_ai.tool.call.arguments':
      rawArguments.length > MAX_ARGUMENT_CHARS ? `${rawArguments.slice(0, MAX_ARGUMENT_CHARS)}…` : rawArguments,
  };
}

/** What a tool span records of the tool's result (tools/tool.ts ToolResult has this shape). */
export interface ToolResultFacts {
  status: string;
  output: string;
  error?: string;
  metadata: { durationMs: number; filesModified: readonly string[]; diff?: string; extra?: Record<string, unknown>; failedWork?: string };
}

export function toolResultAttributes(result: ToolResultFacts): Attributes {
  return {
    // A call that worked but ran something that failed (a command exiting non-zero) is not shown as a success.
    'crow.tool.status': result.metadata.failedWork !== undefined && result.status === 'success' ? 'failed' : result.status,
    ...(result.metadata.failedWork !== undefined ? { 'crow.tool.failed': result.metadata.failedWork } : {}),
    'crow.tool.duration_ms': result.metadata.durationMs,
    'crow.tool.files_modified': [...result.metadata.filesModified],
    'crow.tool.output': clipCounted(result.status === 'success' ? result.output : `${result.error ?? ''}\n${result.output}`.trim(), MAX_CONTENT_CHARS),
    ...(result.metadata.diff !== undefined ? { 'crow.tool.diff': clipCounted(result.metadata.diff, MAX_CONTENT_CHARS) } : {}),
    // The arguments a person edited before allowing the call: gen_ai.tool.call.arguments keeps the model's.
    ...(result.metadata.extra?.editedArguments !== undefined
      ? { 'crow.tool.edited_arguments': clipCounted(JSON.stringify(result.metadata.extra.editedArguments), MAX_ARGUMENT_CHARS) }
      : {}),
  };
}
