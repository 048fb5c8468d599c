/**
 * Claude on Amazon Bedrock through @anthropic-ai/bedrock-sdk, whose client
 * has the Anthropic SDK's surface: it moves the model into the path
 * (`/model/{id}/invoke-with-response-stream`) and the API version into the
 * body (`anthropic_version`), signs each request with SigV4 (or sends a
 * Bedrock API key as a bearer token), and turns the answer's AWS
 * event-stream framing back into the SSE that AnthropicProvider reads.
 *
 * A bundle of its own (dist/bedrock.js, see esbuild.mjs): the AWS code is
 * read only by a run on Bedrock. It carries its own copy of the Anthropic
 * SDK, whose error classes it hands to the provider.
 */
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { APIConnectionError, APIError } from '@anthropic-ai/sdk/core/error';
import { createCredentialChain, fromEnv, fromNodeProviderChain } from '@aws-sdk/credential-providers';
import type { MessagesEndpoint } from './anthropic';
import type { Fetch } from './bounded-body';
import { type CloudPlace, MissingCloudCredentials } from './cloud-place';

/**
 * The Messages API version Bedrock documents, sent in the body
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html).
 * Named, because the SDK otherwise copies the first-party API's version header (2026-10-21) there.
 */
const BEDROCK_VERSION = 'bedrock-2023-05-31';

/** What a 401 or 403 tells the user to check. */
const CREDENTIALS = 'the AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK)';

type Credentials = Awaited<ReturnType<ReturnType<typeof fromEnv>>>;

/**
 * The endpoint for a Bedrock provider. Credentials are the SDK's: a key
 * (api_key_env, else AWS_BEARER_TOKEN_BEDROCK), else AWS's own chain
 * (environment, then profile files, SSO, web identity, container and
 * instance roles), looked up before each request so that finding none ends
 * the turn with what to set instead of retrying a "connection".
 */
export function bedrockEndpoint(place: CloudPlace, env: NodeJS.ProcessEnv = process.env): (fetch: Fetch) => MessagesEndpoint {
  return (fetch) => {
    const chain = createCredentialChain(fromEnv(), fromNodeProviderChain());
    const credentials = async (): Promise<Credentials> => {
      try {
        return await chain();
      } catch {
        throw new MissingCloudCredentials(
          `No AWS credentials for provider "${place.provider}" (Amazon Bedrock): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ` +
            'or AWS_PROFILE (a profile in ~/.aws/config), or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK.',
        );
      }
    };
    const apiKey = place.apiKey ?? (env.AWS_BEARER_TOKEN_BEDROCK || undefined);
    const client = new AnthropicBedrock({
      ...(place.region !== undefined ? { awsRegion: place.region } : {}),
      ...(place.baseURL !== undefined ? { baseURL: place.baseURL } : {}),
      apiKey: apiKey ?? null,
      providerChainResolver: async () => credentials,
      defaultHeaders: { 'anthropic-version': BEDROCK_VERSION },
      maxRetries: 0,
      fetch,
    });
    return {
      client: {
        baseURL: client.baseURL,
        messages: {
          create: (body, options) => ({
            asResponse: async () => {
              if (apiKey === undefined) await credentials();
              return client.messages.create(body, options).asResponse();
            },
          }),
        },
      },
      APIError,
      APIConnectionError,
      name: 'aws.bedrock',
      label: `Amazon Bedrock (${client.awsRegion})`,
      credentials: CREDENTIALS,
    };
  };
}
