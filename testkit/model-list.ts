/** `GET /v1/models` as the fake LLM server answers it, in each API's shape. */
import type { FakeApi } from './strict-wire';

/** A model as `GET /v1/models` lists it, with what the list may say of it. */
export interface ListedModel {
  id: string;
  contextWindow?: number;
  outputCap?: number;
}

/**
 * The list as each API answers it: Anthropic's Models API
 * (docs.anthropic.com/en/api/models-list: `data` of `{type: "model", id,
 * display_name, created_at, max_input_tokens, max_tokens}`, paged with
 * `has_more`, `first_id`, `last_id`), or OpenAI's `{object: "list", data:
 * [{id, object: "model", created, owned_by}]}`, where a window is vLLM's
 * `max_model_len`.
 */
export function modelList(api: FakeApi, models: readonly (string | ListedModel)[]): unknown {
  const listed = models.map((model) => (typeof model === 'string' ? { id: model } : model));
  if (api === 'anthropic') {
    const data = listed.map(({ id, contextWindow, outputCap }) => ({
      type: 'model',
      id,
      display_name: id,
      created_at: '2026-01-01T00:00:00Z',
      max_input_tokens: contextWindow ?? null,
      max_tokens: outputCap ?? null,
    }));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  }
  const data = listed.map(({ id, contextWindow }) => ({ id, object: 'model', created: 0, owned_by: 'fake', ...(contextWindow ? { max_model_len: contextWindow } : {}) }));
  return { object: 'list', data };
}
