/**
 * Web search backends. The configuration picks one; each turns a query into
 * a short list of results and throws errors a person can act on (which
 * status, which setting, which environment variable).
 */
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { type WebSearchConfig, WebSearchConfigSchema } from '../config/web-search-config';
import { BodyLimitError, type BodyLimits, boundedFetch } from '../llm/bounded-body';
import { networkErrorDetail } from './builtin/web-fetch';
import { convertHtml } from './html-to-markdown';

export interface SearchResult {
  title: string;
  url: string;
  /** A sentence or two from the page, as plain text. */
  snippet: string;
}

export interface WebSearchBackend {
  /** Shown with the results, e.g. "SearXNG" or "Brave Search". */
  readonly name: string;
  /** At most `maxResults` results, best first. */
  search(query: string, maxResults: number, signal: AbortSignal): Promise<SearchResult[]>;
}

const BRAVE_BASE_URL = 'https://api.search.brave.com/res/v1';

/** The backend a configuration names; throws when it cannot work, e.g. its API key variable is unset. */
export function createSearchBackend(config: WebSearchConfig, env: NodeJS.ProcessEnv = process.env): WebSearchBackend {
  const parsed = WebSearchConfigSchema().parse(config);
  switch (parsed.backend) {
    case 'searxng':
      return new SearxngBackend(parsed.url);
    case 'brave': {
      const apiKey = env[parsed.apiKeyEnv];
      if (!apiKey) {
        throw new Error(`Brave Search needs an API key: set the environment variable ${parsed.apiKeyEnv}.`);
      }
      return new BraveBackend(apiKey, parsed.baseUrl ?? BRAVE_BASE_URL);
    }
  }
}

const SearxngResponse = onFirstUse(() =>
  z.object({
    results: z.array(z.object({ title: z.string().optional(), url: z.string().optional(), content: z.string().optional() })),
  }),
);

/** A SearXNG instance's JSON API (GET /search?q=…&format=json). */
export class SearxngBackend implements WebSearchBackend {
  readonly name = 'SearXNG';

  constructor(private readonly instanceUrl: string) {}

  async search(query: string, maxResults: number, signal: AbortSignal): Promise<SearchResult[]> {
    const url = new URL('search', withTrailingSlash(this.instanceUrl));
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const body = await getJson(this.name, url, {}, signal, {
      403: 'The instance may not allow the json format: add "json" to search.formats in its settings.yml.',
      429: "The instance's rate limiter refused the request; wait, or use an instance of your own.",
    });
    const { results } = parseAs(this.name, SearxngResponse(), body);
    return results.slice(0, maxResults).flatMap((r) => toResult(r.title, r.url, r.content));
  }
}

const BraveResponse = onFirstUse(() =>
  z.object({
    web: z
      .object({
        results: z.array(z.object({ title: z.string().optional(), url: z.string().optional(), description: z.string().optional() })),
      })
      .optional(),
  }),
);

/** The Brave Search web API (GET /web/search with an X-Subscription-Token header). */
export class BraveBackend implements WebSearchBackend {
  readonly name = 'Brave Search';

  constructor(
    private readonly apiKey: string,
    private readonly baseUrl: string = BRAVE_BASE_URL,
  ) {}

  async search(query: string, maxResults: number, signal: AbortSignal): Promise<SearchResult[]> {
    const url = new URL('web/search', withTrailingSlash(this.baseUrl));
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(maxResults));
    const headers = { 'x-subscription-token': this.apiKey };
    const body = await getJson(this.name, url, headers, signal, {
      401: 'The API key was refused; check it.',
      403: 'The API key was refused; check it.',
      429: "The plan's rate limit was hit; wait before searching again.",
    });
    const results = parseAs(this.name, BraveResponse(), body).web?.results ?? [];
    return results.slice(0, maxResults).flatMap((r) => toResult(r.title, r.url, r.description));
  }
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** Results without a URL are useless to the model; titles and snippets may carry HTML highlighting. */
function toResult(title: string | undefined, url: string | undefined, snippet: string | undefined): SearchResult[] {
  if (!url) return [];
  const plain = (html: string | undefined): string => convertHtml(html ?? '', { format: 'text' }).text.replace(/\s+/g, ' ');
  return [{ title: plain(title) || url, url, snippet: plain(snippet) }];
}

/** GETs JSON; an HTTP error names the backend, the status, the start of the body and the hint for that status. */
/**
 * What Crow reads of a search backend's answer: a page of results is
 * kilobytes of JSON, an error a sentence. A backend that sends more (a
 * misconfigured proxy, an endless stream) is cut off, not held in memory.
 */
const SEARCH_LIMITS: BodyLimits = { errorBytes: 64 * 1024, bodyBytes: 4 * 1024 * 1024 };
const searchFetch = boundedFetch((url, init) => fetch(url, init), SEARCH_LIMITS);

async function getJson(
  backend: string,
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
  hints: Record<number, string>,
): Promise<unknown> {
  const response = await searchFetch(url, { signal, headers: { accept: 'application/json', ...headers } }).catch((err: unknown) => {
    if (signal.aborted) throw err;
    throw new Error(`Could not reach ${backend} at ${url.origin}: ${networkErrorDetail(err)}`, { cause: err });
  });
  const hint = hints[response.status];
  const text = await response.text().catch((err: unknown) => {
    if (signal.aborted || !(err instanceof BodyLimitError)) throw err;
    if (!response.ok) return '';
    throw new Error(`${backend} at ${url.origin} ${err.message}, so its answer was dropped; check that the configured address is the search API itself.`, { cause: err });
  });
  if (!response.ok) {
    const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200).replace(/[.!?]$/, '');
    throw new Error(`${backend} answered HTTP ${response.status}${excerpt ? `: ${excerpt}` : ''}.${hint ? ` ${hint}` : ''}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${backend} answered with something that is not JSON: ${text.slice(0, 200)}`);
  }
}

function parseAs<T>(backend: string, schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`${backend} answered JSON of an unexpected shape: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
