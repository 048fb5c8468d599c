/**
 * What the real APIs refuse before they read a request's body: a request
 * without credentials, and (Anthropic) one without the API version header.
 * Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM, LM Studio) ask
 * for no key unless started with one, so only OpenAI itself checks it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Refusal } from './wire-rules';

export interface HeaderRule {
  /** Stable, e.g. "anthropic/api-key"; a test that breaks the rule on purpose names it. */
  name: string;
  /** Where the rule and its message come from. */
  source: string;
  check(headers: IncomingHttpHeaders): Refusal | undefined;
}

const present = (value: string | string[] | undefined): boolean => typeof value === 'string' && value.trim() !== '';

/** A bearer credential in `Authorization`, as OpenAI reads it (and Anthropic, for an auth token instead of a key). */
const bearer = (headers: IncomingHttpHeaders): boolean => /^Bearer\s+\S/i.test(headers.authorization ?? '');

export const ANTHROPIC_HEADER_RULES: readonly HeaderRule[] = [
  {
    name: 'anthropic/api-key',
    source: 'Anthropic API errors (401 authentication_error); the message as users report it, e.g. n8n-io/n8n#37930, karthink/gptel#354',
    check: (headers) =>
      present(headers['x-api-key']) || bearer(headers) ? undefined : { status: 401, type: 'authentication_error', message: 'x-api-key header is required' },
  },
  {
    name: 'anthropic/version-header',
    source: 'Anthropic API versioning: every request sends anthropic-version (docs.anthropic.com/en/api/versioning); without it the API answers 400',
    check: (headers) =>
      present(headers['anthropic-version']) ? undefined : { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' },
  },
];

export const OPENAI_HEADER_RULES: readonly HeaderRule[] = [
  {
    name: 'openai/api-key',
    source: 'OpenAI API authentication (Authorization: Bearer); the 401 body as reported in openai/openai-cookbook#2347',
    check: (headers) =>
      bearer(headers) ? undefined : { status: 401, type: 'invalid_request_error', message: 'Missing bearer or basic authentication in header', param: null, code: null },
  },
];
