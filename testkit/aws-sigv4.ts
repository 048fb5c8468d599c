/**
 * Checks an AWS Signature Version 4 the way an AWS service does before it
 * reads a request, for the fake Bedrock runtime (fake-bedrock.ts). The
 * steps are AWS's "Create a signed AWS API request"
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html):
 * the canonical request (method, the path with each segment URI-encoded
 * again, the sorted query, the signed headers with trimmed values, their
 * names, the SHA-256 of the payload), the string to sign
 * (`AWS4-HMAC-SHA256`, the request time, the credential scope, the hash of
 * the canonical request), and the signing key derived from the secret key,
 * date, region and service. The refusals are the services' own
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/signature-v4-troubleshooting.html;
 * the InvalidSignatureException wording as a JSON-protocol service answers
 * it, e.g. in gist alexmchale/b98a4fd4b78ce5f245a62b40038e9947).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** What an AWS service answers a request it will not authenticate: status, `x-amzn-errortype`, message. */
export interface AwsRefusal {
  status: number;
  errorType: string;
  message: string;
}

export interface SignedRequest {
  method: string;
  /** The path and query as they arrived (still percent-encoded). */
  rawUrl: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** How far the request time may be from the server's clock (AWS: 5 minutes). */
const MAX_SKEW_MS = 5 * 60 * 1000;
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;

const invalidSignature = (message: string): AwsRefusal => ({ status: 403, errorType: 'InvalidSignatureException', message });

/** The refusal, or undefined when the request is signed by `credentials` for `service` in `region`. */
export function checkSigV4(request: SignedRequest, credentials: AwsCredentials, service: string, region: string, now = Date.now()): AwsRefusal | undefined {
  const authorization = header(request.headers, 'authorization');
  if (authorization === undefined) return { status: 403, errorType: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const match = AUTHORIZATION.exec(authorization);
  if (!match) return { status: 400, errorType: 'IncompleteSignatureException', message: `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters.` };
  const [, credential, signedHeaderList, signature] = match as unknown as [string, string, string, string];
  const [accessKeyId, date, scopeRegion, scopeService, terminator] = credential.split('/');
  if (accessKeyId !== credentials.accessKeyId) {
    return { status: 403, errorType: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  if (credentials.sessionToken !== undefined && header(request.headers, 'x-amz-security-token') !== credentials.sessionToken) {
    return { status: 403, errorType: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  if (scopeRegion !== region) return invalidSignature(`Credential should be scoped to a valid region. `);
  if (scopeService !== service) return invalidSignature(`Credential should be scoped to correct service: '${service}'. `);
  if (terminator !== 'aws4_request') return invalidSignature(`Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator}'. `);
  const amzDate = header(request.headers, 'x-amz-date');
  const signedHeaders = signedHeaderList.split(';');
  if (amzDate === undefined || !signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) {
    return invalidSignature(`'Host' or 'x-amz-date' must be a signed header in the signed headers list.`);
  }
  const requestTime = parseAmzDate(amzDate);
  if (requestTime === undefined || !amzDate.startsWith(date ?? '-')) return invalidSignature('Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.');
  if (Math.abs(now - requestTime) > MAX_SKEW_MS) return invalidSignature(`Signature expired: ${amzDate} is now earlier or later than the allowed window of 5 minutes.`);
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest(request, signedHeaders))].join('\n');
  const expected = hmac(signingKey(credentials.secretAccessKey, date!, region, service), stringToSign).toString('hex');
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) {
    return invalidSignature(
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  }
  return undefined;
}

/** The canonical request: the payload's hash is computed from the body received, so a changed body fails. */
function canonicalRequest(request: SignedRequest, signedHeaders: string[]): string {
  const url = new URL(request.rawUrl, 'http://placeholder');
  const rawPath = request.rawUrl.split('?')[0] ?? '/';
  const canonicalUri = rawPath.split('/').map(uriEncode).join('/') || '/';
  const query = [...url.searchParams.entries()]
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${(header(request.headers, name) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  return [request.method.toUpperCase(), canonicalUri, query, canonicalHeaders, signedHeaders.join(';'), sha256(request.body)].join('\n');
}

/** RFC 3986 encoding as SigV4 asks: everything but A–Z, a–z, 0–9, '-', '_', '.', '~'. */
function uriEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  const dateKey = hmac(`AWS4${secret}`, date);
  return hmac(hmac(hmac(dateKey, region), service), 'aws4_request');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `20250101T120000Z` as milliseconds, or undefined when malformed. */
function parseAmzDate(value: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
