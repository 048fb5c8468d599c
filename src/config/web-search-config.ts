/** How web_search reaches a backend, as the settings give it (in code's spelling); the backends are tools/web-search-backends.ts. */
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The "webSearch" setting. */
export const WebSearchConfigSchema = onFirstUse(() =>
  z.discriminatedUnion('backend', [
    z
      .object({
        backend: z.literal('searxng'),
        /** Root of a SearXNG instance with the json output format enabled, e.g. "http://localhost:8888". */
        url: z.url(),
      })
      .strict(),
    z
      .object({
        backend: z.literal('brave'),
        /** Environment variable holding the Brave Search API key. */
        apiKeyEnv: z.string().regex(ENV_NAME).default('BRAVE_API_KEY'),
        /** Overrides the API root (default https://api.search.brave.com/res/v1). */
        baseUrl: z.url().optional(),
      })
      .strict(),
  ]),
);

export type WebSearchConfig = z.input<ReturnType<typeof WebSearchConfigSchema>>;
