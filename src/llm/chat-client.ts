/**
 * The SDK client a Chat Completions provider talks through: OpenAI's own
 * (OpenRouter's with its attribution headers), or, for an Azure OpenAI resource, the SDK's AzureOpenAI, which differs on
 * the wire (learn.microsoft.com/azure/ai-services/openai/reference):
 * the model is a deployment named in the path
 * (`/openai/deployments/{deployment}/chat/completions`), every request
 * carries the `api-version` query parameter, and the key goes in an
 * `api-key` header instead of `Authorization: Bearer`.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { boundedFetch, type Fetch, MODEL_SERVER_LIMITS } from './bounded-body';
import { errorListUnwrapped } from './error-list';
import { flavorOf, type ServerFlavor } from './openai-flavor';
import type { HttpProviderOptions } from './resilient-stream';
import type { ProviderProfile } from './stream-failure';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The `fetch` the OpenAI SDK reads a model server through: every error
 * answer bounded (see bounded-body.ts; the SDK reads them whole), and one
 * sent as a list of one unwrapped (see error-list.ts).
 */
export function modelServerFetch(): Fetch {
  return errorListUnwrapped(boundedFetch((url, init) => fetch(url, init), MODEL_SERVER_LIMITS));
}

/** Whether the client talks to OpenAI's own API (its images and its wording in errors). */
export function isOpenAIItself(client: OpenAI): boolean {
  return client.baseURL === OPENAI_BASE_URL;
}

/** Who is on the other end of an OpenAI SDK client, to judge and word its failures (see stream-failure.ts). */
export function openaiProfile(client: OpenAI, options: Pick<HttpProviderOptions, 'apiKeyEnv' | 'model'>): ProviderProfile {
  return {
    label: isOpenAIItself(client) ? 'OpenAI' : `the server at ${client.baseURL}`,
    apiKeyEnv: options.apiKeyEnv ?? 'OPENAI_API_KEY',
    model: options.model,
    baseURL: client.baseURL,
    APIError: OpenAI.APIError,
    APIConnectionError: OpenAI.APIConnectionError,
  };
}

/**
 * OpenRouter's optional attribution headers (openrouter.ai/docs/api-reference/overview,
 * "Headers"): the app's site and name, shown in its rankings and activity log.
 */
export const OPENROUTER_HEADERS = { 'HTTP-Referer': 'https://github.com/crow-agent/crow-agent', 'X-Title': 'Crow Agent' };

/** The latest generally available API version of Azure OpenAI's data plane; a base URL's `?api-version=` wins. */
export const AZURE_API_VERSION = '2024-10-21';

export interface ChatClientOptions {
  apiKey: string;
  baseURL?: string;
  flavor?: ServerFlavor;
  fetch: Fetch;
}

/**
 * The client for `options`: AzureOpenAI when the flavor (configured, or told
 * from an Azure host) is `azure`, else OpenAI (with OpenRouter's attribution
 * headers on OpenRouter). Retries are never the SDK's
 * (resilient-stream does them, visibly).
 */
export function chatClient(options: ChatClientOptions): OpenAI {
  const client = new OpenAI({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0, fetch: options.fetch });
  const flavor = flavorOf(client.baseURL, options.flavor);
  if (flavor === 'openrouter') return client.withOptions({ defaultHeaders: OPENROUTER_HEADERS });
  if (flavor !== 'azure') return client;
  const { baseURL, apiVersion } = azureEndpoint(client.baseURL);
  // The model of each request is the deployment: the SDK puts it in the path.
  return new AzureOpenAI({ apiKey: options.apiKey, baseURL, apiVersion, maxRetries: 0, fetch: options.fetch });
}

/**
 * An Azure base URL as the SDK takes it: the resource's `/openai` path (added
 * when the URL is only the resource endpoint, as the portal shows it), and
 * the API version from its query, else AZURE_API_VERSION.
 */
export function azureEndpoint(configured: string): { baseURL: string; apiVersion: string } {
  const url = new URL(configured);
  const apiVersion = url.searchParams.get('api-version') || AZURE_API_VERSION;
  url.search = '';
  let path = url.pathname.replace(/\/+$/, '');
  if (!/\/openai$/.test(path)) path = `${path}/openai`;
  url.pathname = path;
  return { baseURL: url.toString(), apiVersion };
}
