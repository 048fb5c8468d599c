/**
 * What Azure OpenAI refuses before it reads a request's body, as rules of
 * the strict fake (learn.microsoft.com/azure/ai-services/openai/reference,
 * "Chat completions"): Chat Completions live at
 * `/openai/deployments/{deployment-id}/chat/completions`, the `api-version`
 * query parameter is required, and the key goes in the `api-key` header.
 * The body is OpenAI's (Azure serves OpenAI's models), so the body rules are
 * OpenAI's. The fake takes no Microsoft Entra ID tokens: a request must
 * carry `api-key`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { HeaderRule } from './header-rules';
import type { Refusal } from './wire-rules';

const REFERENCE = 'https://learn.microsoft.com/azure/ai-services/openai/reference';

/** The Chat Completions route of a deployment. */
export const AZURE_DEPLOYMENT_PATH = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/;

/** A data-plane API version: a date, perhaps a preview. */
const API_VERSION = /^\d{4}-\d{2}-\d{2}(-preview)?$/;

/** A request-line rule: path and query, and the deployments the resource has. */
export interface RequestLineRule {
  name: string;
  source: string;
  check(path: string, query: URLSearchParams, deployments: readonly string[]): Refusal | undefined;
}

const notFound: Refusal = { status: 404, type: 'invalid_request_error', message: 'Resource not found', code: '404' };

export const AZURE_REQUEST_LINE_RULES: readonly RequestLineRule[] = [
  {
    name: 'azure/deployment-route',
    source: `${REFERENCE} (the deployment is in the path; the resource has no /v1/chat/completions of OpenAI's shape)`,
    check: (path) => (AZURE_DEPLOYMENT_PATH.test(path) ? undefined : notFound),
  },
  {
    name: 'azure/api-version',
    source: `${REFERENCE} (api-version: "Required")`,
    check: (_path, query) => (API_VERSION.test(query.get('api-version') ?? '') ? undefined : notFound),
  },
  {
    name: 'azure/deployment',
    source: 'DeploymentNotFound, as quoted in MicrosoftDocs/azure-docs#114013 and chatboxai/chatbox#646',
    check: (path, _query, deployments) => {
      const deployment = decodeURIComponent(AZURE_DEPLOYMENT_PATH.exec(path)?.[1] ?? '');
      return deployments.includes(deployment)
        ? undefined
        : {
            status: 404,
            type: 'invalid_request_error',
            message: 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
            code: 'DeploymentNotFound',
          };
    },
  },
];

export const AZURE_HEADER_RULES: readonly HeaderRule[] = [
  {
    name: 'azure/api-key',
    source: `${REFERENCE} ("Authentication": the api-key header); the 401 as Azure words it for a missing or wrong key`,
    check: (headers: IncomingHttpHeaders) =>
      typeof headers['api-key'] === 'string' && headers['api-key'].trim() !== ''
        ? undefined
        : {
            status: 401,
            type: 'invalid_request_error',
            message:
              'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
            code: '401',
          },
  },
];
