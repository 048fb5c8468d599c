/**
 * Where a cloud provider's Messages API is (Amazon Bedrock, Google Vertex
 * AI) and the failure of finding no credentials for it. Shared by
 * bedrock-endpoint.ts and vertex-endpoint.ts, each in a bundle of its own.
 */

/** A Bedrock or Vertex AI provider's place, from its [providers] entry. */
export interface CloudPlace {
  /** The provider's name, for errors. */
  provider: string;
  /** Undefined: the SDK's own variable (AWS_REGION; CLOUD_ML_REGION). */
  region?: string;
  /** Vertex AI's project; undefined: ANTHROPIC_VERTEX_PROJECT_ID or the credentials' own. */
  projectId?: string;
  /** Undefined: the cloud's endpoint for the region. */
  baseURL?: string;
  /** A Bedrock API key from the entry's api_key_env; undefined: AWS_BEARER_TOKEN_BEDROCK, else SigV4. */
  apiKey?: string;
}

/**
 * No credentials were found where the cloud's SDK looks for them. Not
 * retried (it is no connection failure): the message says what to set.
 */
export class MissingCloudCredentials extends Error {
  override name = 'MissingCloudCredentials';
}
