import * as z from 'zod';
import { errorText } from '../../vocabulary/text';
import { defineTool } from '../define-tool';
import type { Tool } from '../tool';
import { createSearchBackend, type SearchResult, type WebSearchBackend } from '../web-search-backends';
import { type WebSearchConfig } from '../../config/web-search-config';

export { WebSearchConfigSchema, type WebSearchConfig } from '../../config/web-search-config';

const DEFAULT_MAX_RESULTS = 8;
const MAX_RESULTS = 20;
const TIMEOUT_MS = 20_000;

const NOT_CONFIGURED =
  'Web search is not configured, so there are no results. To turn it on, set "webSearch" in the Crow config file, ' +
  'e.g. "webSearch": { "backend": "searxng", "url": "..." } for a SearXNG instance, or ' +
  '"webSearch": { "backend": "brave", "apiKeyEnv": "BRAVE_API_KEY" } for the Brave Search API.';

/**
 * The web_search tool over the configured backend. Without a usable backend
 * (no configuration, or its API key variable unset) every call returns why,
 * and the tool asks for no permission since it cannot reach the network.
 */
export function createWebSearchTool(config: WebSearchConfig | undefined, env: NodeJS.ProcessEnv = process.env): Tool {
  const setup = usableBackend(config, env);
  return defineTool({
    name: 'web_search',
    description:
      'Search the web. Returns numbered results with title, URL and a snippet; read a result with web_fetch. ' +
      'Use specific queries (names, versions, error messages).',
    kind: 'search',
    permission: 'backend' in setup ? 'network' : 'none',
    parameters: () => z.object({
      query: z.string().trim().min(1).describe('What to search for.'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(MAX_RESULTS)
        .default(DEFAULT_MAX_RESULTS)
        .describe(`Results to return at most (default ${DEFAULT_MAX_RESULTS}, at most ${MAX_RESULTS}).`),
    }),
    summarize: ({ query }) => query,
    approval: ({ query }) => ({ title: `Search the web: ${query}` }),
    async execute({ query, max_results }, { signal }) {
      if (!('backend' in setup)) throw new Error(setup.problem);
      const { backend } = setup;
      const timeout = AbortSignal.timeout(TIMEOUT_MS);
      try {
        const results = await backend.search(query, max_results, AbortSignal.any([signal, timeout]));
        return { output: formatResults(query, backend.name, results), extra: { backend: backend.name, results: results.length } };
      } catch (err) {
        if (timeout.aborted && !signal.aborted) throw new Error(`${backend.name} did not answer within ${TIMEOUT_MS / 1000}s.`);
        throw err;
      }
    },
  });
}

function usableBackend(config: WebSearchConfig | undefined, env: NodeJS.ProcessEnv): { backend: WebSearchBackend } | { problem: string } {
  if (config === undefined) return { problem: NOT_CONFIGURED };
  try {
    return { backend: createSearchBackend(config, env) };
  } catch (err) {
    return { problem: `Web search is not available: ${errorText(err)}` };
  }
}

function formatResults(query: string, backend: string, results: SearchResult[]): string {
  if (results.length === 0) return `No results for "${query}" from ${backend}.`;
  const items = results.map((result, index) => {
    const lines = [`${index + 1}. ${result.title}`, `   ${result.url}`];
    if (result.snippet !== '') lines.push(`   ${result.snippet}`);
    return lines.join('\n');
  });
  return `Results for "${query}" from ${backend}:\n\n${items.join('\n\n')}`;
}
