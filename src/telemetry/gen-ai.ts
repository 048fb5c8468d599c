import type { AssistantResponse, Usage } from '../llm/types';
import type { ToolResult } from '../tools/tool';
import type { Attributes } from './span';

/** Prices in US dollars per million tokens. */
export interface ModelPricing {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Cost of one call; cache reads and writes fall back to the input price when not given. */
export function costOf(usage: Usage, pricing: ModelPricing): number {
  const perToken = (price: number): number => price / 1_000_000;
  return (
    usage.input * perToken(pricing.input) +
    usage.cacheRead * perToken(pricing.cacheRead ?? pricing.input) +
    usage.cacheWrite * perToken(pricing.cacheWrite ?? pricing.input) +
    usage.output * perToken(pricing.output)
  );
}

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
  return attributes;
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

export function toolResultAttributes(result: ToolResult): Attributes {
  return {
    'crow.tool.status': result.status,
    'crow.tool.duration_ms': result.metadata.durationMs,
    'crow.tool.files_modified': result.metadata.filesModified,
  };
}
