/**
 * Claude on Google Vertex AI through @anthropic-ai/vertex-sdk, whose client
 * has the Anthropic SDK's surface: it moves the model into the path
 * (`/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict`)
 * and the API version into the body (`anthropic_version`), and sends a
 * Google OAuth access token from google-auth-library's Application Default
 * Credentials. The answer is the Messages API's SSE.
 *
 * A bundle of its own (dist/vertex.js, see esbuild.mjs): the Google code is
 * read only by a run on Vertex AI. It carries its own copy of the Anthropic
 * SDK, whose error classes it hands to the provider.
 */
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { APIConnectionError, APIError } from '@anthropic-ai/sdk/core/error';
import { GoogleAuth } from 'google-auth-library';
import type { MessagesEndpoint } from './anthropic';
import type { Fetch } from './bounded-body';
import { type CloudPlace, MissingCloudCredentials } from './cloud-place';

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The Messages API version Vertex AI documents, sent in the body
 * (https://docs.anthropic.com/en/api/claude-on-vertex-ai). Named, because
 * the SDK otherwise copies the first-party API's version header (2026-10-21) there.
 */
const VERTEX_VERSION = 'vertex-2023-10-16';

/** What a 401 or 403 tells the user to check. */
const CREDENTIALS = 'the Google credentials (GOOGLE_APPLICATION_CREDENTIALS, or gcloud auth application-default login)';

/**
 * Application Default Credentials whose first look-up, which the SDK starts
 * when its client is made, never counts as an unhandled rejection: a
 * session may make its provider long before its first request awaits it.
 */
class QuietGoogleAuth extends GoogleAuth {
  override getClient(): ReturnType<GoogleAuth['getClient']> {
    const client = super.getClient();
    client.catch(() => undefined);
    return client;
  }
}

/**
 * The endpoint for a Vertex AI provider in `region` (see vertexRegion). The
 * SDK's client, which starts looking for Application Default Credentials
 * when it is made, is made at the first request, not with the provider.
 * Credentials are looked up before each request, so that finding none ends
 * the turn with what to set instead of retrying a "connection".
 */
export function vertexEndpoint(place: CloudPlace & { region: string }): (fetch: Fetch) => MessagesEndpoint {
  const { region } = place;
  return (fetch) => {
    // A project named here spares google-auth-library its own search for one (gcloud, the metadata server, Resource Manager).
    const projectId = place.projectId ?? (process.env.ANTHROPIC_VERTEX_PROJECT_ID || undefined);
    const baseURL = place.baseURL ?? regionalBaseUrl(region);
    let made: { client: AnthropicVertex; googleAuth: GoogleAuth } | undefined;
    const vertex = (): { client: AnthropicVertex; googleAuth: GoogleAuth } => {
      if (made) return made;
      const googleAuth = new QuietGoogleAuth({ scopes: CLOUD_PLATFORM_SCOPE, ...(projectId !== undefined ? { projectId } : {}) });
      const options = { region, baseURL, googleAuth, defaultHeaders: { 'anthropic-version': VERTEX_VERSION }, maxRetries: 0, fetch };
      made = { client: new AnthropicVertex(projectId !== undefined ? { ...options, projectId } : options), googleAuth };
      return made;
    };
    const credentials = async (googleAuth: GoogleAuth): Promise<void> => {
      let authClient: Awaited<ReturnType<GoogleAuth['getClient']>>;
      try {
        authClient = await googleAuth.getClient();
      } catch {
        throw new MissingCloudCredentials(
          `No Google credentials for provider "${place.provider}" (Vertex AI): set GOOGLE_APPLICATION_CREDENTIALS to a credentials file ` +
            '(a service account key, or workload identity federation), or run `gcloud auth application-default login`.',
        );
      }
      await accessToken(authClient, place.provider);
    };
    return {
      client: {
        baseURL,
        messages: {
          create: (body, options) => ({
            asResponse: async () => {
              const { client, googleAuth } = vertex();
              await credentials(googleAuth);
              return client.messages.create(body, options).asResponse();
            },
          }),
        },
      },
      APIError,
      APIConnectionError,
      name: 'gcp.vertex_ai',
      label: `Google Vertex AI (${region})`,
      credentials: CREDENTIALS,
    };
  };
}

/**
 * Gets (and caches, for the SDK's request) the access token. A token
 * endpoint that refuses the credentials (HTTP 400 to 403: a revoked key, a
 * wrong subject token) ends the turn naming them, instead of being retried
 * as the SDK's "connection" failure; any other failure is left for the SDK
 * to meet and the provider to retry.
 */
async function accessToken(authClient: Awaited<ReturnType<GoogleAuth['getClient']>>, provider: string): Promise<void> {
  try {
    await authClient.getAccessToken();
  } catch (error) {
    const response = (error as { response?: { status?: number; data?: { error?: unknown; error_description?: unknown } } }).response;
    const status = response?.status ?? 0;
    if (status < 400 || status > 403) return;
    const said = [response?.data?.error, response?.data?.error_description].filter((part) => typeof part === 'string').join(': ');
    throw new MissingCloudCredentials(
      `Google refused the credentials of provider "${provider}" (Vertex AI)${said ? ` (${said})` : ''}: check the file GOOGLE_APPLICATION_CREDENTIALS names, ` +
        'or run `gcloud auth application-default login` again.',
    );
  }
}

/** The endpoint the SDK picks for a region (its constructor's own choice, needed before the client is made). */
function regionalBaseUrl(region: string): string {
  switch (region) {
    case 'global':
      return 'https://aiplatform.googleapis.com/v1';
    case 'us':
    case 'eu':
      return `https://aiplatform.${region}.rep.googleapis.com/v1`;
    default:
      return `https://${region}-aiplatform.googleapis.com/v1`;
  }
}
