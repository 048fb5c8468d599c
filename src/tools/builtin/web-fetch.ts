import * as z from 'zod';
import { version } from '../../../package.json';
import { BlockedAddressError } from '../address-guard';
import { errorText } from '../../vocabulary/text';
import { defineTool } from '../define-tool';
import { guardedGet } from '../guarded-fetch';
import { convertHtml } from '../html-to-markdown';
import type { Tool, ToolContext } from '../tool';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 5_000_000;
const DEFAULT_MAX_CHARS = 50_000;
const MAX_CHARS = 200_000;
const MAX_REDIRECTS = 5;
/** Bytes of an error page read, and characters of it quoted back to the model. */
const ERROR_BODY_BYTES = 64_000;
const ERROR_EXCERPT_CHARS = 300;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** application/* types that are text worth reading; text/*, +json and +xml are always accepted. */
const TEXT_APPLICATION_TYPES = new Set([
  'application/json', 'application/xml', 'application/javascript', 'application/ecmascript', 'application/x-javascript',
  'application/yaml', 'application/x-yaml', 'application/toml', 'application/x-sh', 'application/graphql', 'application/sql',
]);

export const DEFAULT_USER_AGENT = `CrowAgent/${version} (AI coding agent)`;

export interface WebFetchOptions {
  /** Milliseconds one call may take in all: redirects, headers and body. */
  timeoutMs?: number;
  /** Body bytes read at most; the rest is not downloaded. */
  maxBytes?: number;
  userAgent?: string;
  /**
   * Reach loopback, private, link-local and cloud-metadata addresses too
   * (config.toml: [web_fetch] allow_private_addresses). Default: refused,
   * whatever spelling or DNS name leads there.
   */
  allowPrivateAddresses?: boolean;
}

type Format = 'markdown' | 'text' | 'raw';
type BodyKind = 'html' | 'text';
/** What a content type says about the body; 'unknown' when there is none and the bytes must tell. */
type DeclaredKind = BodyKind | 'binary' | 'unknown';

interface Page {
  finalUrl: URL;
  redirects: number;
  response: Response;
  mediaType: string;
}

export function createWebFetchTool(options: WebFetchOptions = {}): Tool {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const connection = { userAgent: options.userAgent ?? DEFAULT_USER_AGENT, allowPrivateAddresses: options.allowPrivateAddresses ?? false };
  return defineTool({
    name: 'web_fetch',
    description:
      'Fetch a web page or text file over http(s) and return its content. HTML comes back as markdown (or plain text, ' +
      'or the raw HTML with format "raw"); JSON, XML and other text types come back as they are. Images, PDFs and ' +
      `other binary types are refused. Output is cut at max_chars (default ${DEFAULT_MAX_CHARS}). ` +
      (connection.allowPrivateAddresses
        ? 'Local and private network addresses are allowed.'
        : 'Only public addresses are reached: localhost, private networks and cloud metadata services are refused.'),
    kind: 'fetch',
    permission: 'network',
    parameters: () => z.object({
      url: z.string().superRefine(checkHttpUrl).describe('Absolute http:// or https:// URL.'),
      max_chars: z
        .number()
        .int()
        .min(1)
        .max(MAX_CHARS)
        .default(DEFAULT_MAX_CHARS)
        .describe(`Characters of content to return at most (default ${DEFAULT_MAX_CHARS}, at most ${MAX_CHARS}).`),
      format: z
        .enum(['markdown', 'text', 'raw'])
        .default('markdown')
        .describe('How to return HTML: markdown (default), plain text, or the raw HTML.'),
    }),
    maxOutputChars: MAX_CHARS + 2_000,
    summarize: ({ url }) => url,
    approval: ({ url }) => ({ title: `Fetch ${url}` }),
    async execute({ url, max_chars, format }, ctx) {
      const { signal } = ctx;
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        const page = await request(new URL(url), AbortSignal.any([signal, timeout]), connection, ctx);
        const { content, cut } = await readContent(page, format, maxBytes);
        const notes = [
          ...(content.length > max_chars ? [truncationNote(max_chars, content.length)] : []),
          ...(cut ? [`[body cut: only the first ${maxBytes} bytes were downloaded]`] : []),
        ];
        return {
          output: [header(page, url), '', content.slice(0, max_chars), ...(notes.length > 0 ? ['', ...notes] : [])].join('\n'),
          extra: {
            url: page.finalUrl.href,
            status: page.response.status,
            contentType: page.mediaType,
            redirects: page.redirects,
            totalChars: content.length,
            bodyCut: cut,
          },
        };
      } catch (err) {
        if (timeout.aborted && !signal.aborted) throw new Error(`Fetching ${url} timed out after ${timeoutMs / 1000}s.`);
        throw err;
      }
    },
  });
}

export const webFetchTool = createWebFetchTool();

function checkHttpUrl(value: string, ctx: z.RefinementCtx): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `not an absolute URL: "${value}"; include the scheme, e.g. https://example.com` });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `only http and https URLs can be fetched, not ${url.protocol}` });
  }
}

/**
 * GETs `url`, following up to MAX_REDIRECTS redirects between http(s) URLs;
 * a redirect to another host is authorized again, naming that host.
 */
async function request(
  url: URL,
  signal: AbortSignal,
  connection: { userAgent: string; allowPrivateAddresses: boolean },
  ctx: ToolContext,
): Promise<Page> {
  const headers = {
    'user-agent': connection.userAgent,
    accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.8',
  };
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const response = await guardedGet(current, { signal, headers, allowPrivateAddresses: connection.allowPrivateAddresses }).catch(
      (err: unknown) => {
        throw networkError(current, err);
      },
    );
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
    if (location === null) {
      const mediaType = (response.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
      return { finalUrl: current, redirects, response, mediaType };
    }
    await response.body?.cancel();
    const next = URL.parse(location, current.href);
    if (next === null || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
      throw new Error(`${current.href} redirected to "${location}", which is not an http(s) URL web_fetch can follow.`);
    }
    if (redirects === MAX_REDIRECTS) {
      throw new Error(`Stopped after ${MAX_REDIRECTS} redirects; the last one pointed to ${next.href}.`);
    }
    if (next.hostname !== current.hostname) await authorizeRedirect(current, next, ctx, signal);
    current = next;
  }
}

/** A redirect to another host is a new destination: the permission gate decides it as it did the first. */
async function authorizeRedirect(from: URL, to: URL, ctx: ToolContext, signal: AbortSignal): Promise<void> {
  const verdict = await ctx.permissions.authorize(
    {
      tool: 'web_fetch',
      callId: ctx.callId,
      agent: ctx.agentName,
      category: 'network',
      title: `Fetch ${to.href} (${from.hostname} redirected to ${to.hostname})`,
      paths: [],
      alwaysScope: 'all network access',
    },
    signal,
  );
  if (!verdict.allowed) throw new Error(`${from.href} redirected to ${to.hostname}, a host not yet approved: ${verdict.reason}`);
}

function networkError(url: URL, err: unknown): Error {
  if (err instanceof BlockedAddressError) return new Error(`Refused to fetch ${url.href}: ${err.message}`);
  return new Error(`Could not fetch ${url.href}: ${networkErrorDetail(err)}`, { cause: err });
}

/** Why fetch() failed, from the cause it wraps (e.g. "connect ECONNREFUSED 127.0.0.1:9"), not its bare "fetch failed". */
export function networkErrorDetail(err: unknown): string {
  const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
  const code = (cause as { code?: unknown } | null)?.code;
  return errorText(cause) || (typeof code === 'string' ? code : errorText(err));
}

function declaredKind(mediaType: string): DeclaredKind {
  if (mediaType === '') return 'unknown';
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (mediaType.startsWith('text/') || TEXT_APPLICATION_TYPES.has(mediaType) || /\+(json|xml)$/.test(mediaType)) return 'text';
  return 'binary';
}

/** The page as text for the model; throws for HTTP errors and for types web_fetch cannot read. */
async function readContent(page: Page, format: Format, maxBytes: number): Promise<{ content: string; cut: boolean }> {
  const kind = declaredKind(page.mediaType);
  if (page.response.status >= 400) throw await httpError(page, kind, maxBytes);
  if (kind === 'binary') {
    await page.response.body?.cancel();
    throw new Error(
      `${page.finalUrl.href} is ${page.mediaType}, which web_fetch does not support: it reads HTML and text ` +
        '(text/*, JSON, XML, JavaScript), not images, PDFs or other binary files.',
    );
  }
  const body = await readBody(page, maxBytes);
  return { content: render(page, kind, body.bytes, format), cut: body.cut };
}

async function readBody(page: Page, maxBytes: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = page.response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks, size), cut: false };
      chunks.push(value);
      size += value.length;
    }
  } catch (err) {
    throw networkError(page.finalUrl, err);
  }
  await reader.cancel();
  return { bytes: Buffer.concat(chunks, size).subarray(0, maxBytes), cut: true };
}

function render(page: Page, kind: BodyKind | 'unknown', bytes: Uint8Array, format: Format): string {
  const sniffed = kind === 'unknown' ? sniffKind(page, bytes) : kind;
  const text = decode(bytes, charset(page, sniffed, bytes));
  if (sniffed === 'text' || format === 'raw') return text;
  const converted = convertHtml(text, { baseUrl: page.finalUrl.href, format });
  return converted.title === undefined ? converted.text : `Title: ${converted.title}\n\n${converted.text}`;
}

/** Bodies without a content type: HTML by its opening, text unless NUL bytes say binary. */
function sniffKind(page: Page, bytes: Uint8Array): BodyKind {
  const head = bytes.subarray(0, 1024);
  if (head.includes(0)) throw new Error(`${page.finalUrl.href} sent binary data without a content type; web_fetch reads only HTML and text.`);
  // Read as latin1, a UTF-8 byte order mark is the three characters \xEF\xBB\xBF.
  return /^(?:\xEF\xBB\xBF)?\s*<(?:!doctype html|html)/i.test(Buffer.from(head).toString('latin1')) ? 'html' : 'text';
}

/** The content-type charset, else for HTML a <meta charset> near the top, else utf-8. */
function charset(page: Page, kind: BodyKind, bytes: Uint8Array): string {
  const declared = /charset\s*=\s*"?([\w.:-]+)/i.exec(page.response.headers.get('content-type') ?? '')?.[1];
  if (declared !== undefined || kind !== 'html') return declared ?? 'utf-8';
  const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ?? 'utf-8';
}

/** Decodes with the named charset, or utf-8 when Node does not know the label. */
function decode(bytes: Uint8Array, label: string): string {
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** An error naming the status, with the start of a textual error page. */
async function httpError(page: Page, kind: DeclaredKind, maxBytes: number): Promise<Error> {
  const { response } = page;
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from ${page.finalUrl.href}`;
  const excerpt = await errorExcerpt(page, kind, maxBytes).catch(() => '');
  return new Error(excerpt === '' ? `${status}.` : `${status}: ${excerpt}`);
}

async function errorExcerpt(page: Page, kind: DeclaredKind, maxBytes: number): Promise<string> {
  if (kind === 'binary') {
    await page.response.body?.cancel();
    return '';
  }
  const body = await readBody(page, Math.min(maxBytes, ERROR_BODY_BYTES));
  return render(page, kind, body.bytes, 'text').replace(/\s+/g, ' ').trim().slice(0, ERROR_EXCERPT_CHARS);
}

function header(page: Page, requested: string): string {
  const { response, finalUrl } = page;
  const type = response.headers.get('content-type') ?? 'no content type';
  const from = page.redirects > 0 ? `, redirected from ${requested}` : '';
  return `${finalUrl.href} (HTTP ${response.status}, ${type}${from})`;
}

function truncationNote(shown: number, total: number): string {
  const advice = shown < MAX_CHARS ? '; call again with a larger max_chars' : '';
  return `[truncated at ${shown} of ${total} characters${advice}]`;
}
