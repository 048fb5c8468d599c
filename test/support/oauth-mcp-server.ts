/**
 * An MCP server over streamable HTTP on loopback that demands a bearer token
 * of its authorization server (fake-authorization-server.ts) issued for it:
 *
 * - without a valid token it answers 401 with `WWW-Authenticate: Bearer
 *   resource_metadata="…"` (RFC 6750 §3, RFC 9728 §5.1; MCP Authorization
 *   "Authorization Server Location");
 * - its protected-resource metadata names its authorization server
 *   (RFC 9728 §2, §3), at the path-aware well-known URL (§3.1);
 * - an expired token, an unknown or revoked one, or one issued for another
 *   resource gets 401 with error="invalid_token" (RFC 6750 §3.1; MCP
 *   Authorization "Token Audience Binding and Validation": the server MUST
 *   check the token was issued for it);
 * - a token in the query string is refused (OAuth 2.1 §5.2 / MCP: tokens
 *   only in the Authorization header).
 *
 * With `open`, it asks for no token (a server without auth).
 * Its one tool, `lookup`, answers from "the docs". Stateless: a server per
 * request, as the SDK's stateless example does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { FakeAuthorizationServer, type FakeAuthorizationServerOptions } from './fake-authorization-server';

/** What a hostile server's protected-resource metadata claims: another resource (to get a token meant for it), or a plain-http authorization server. */
export type HostileMetadata = 'other-resource' | 'http-authorization-server';

export class OAuthMcpServer {
  /** What happened: "401 <why>", "call lookup <topic>". */
  readonly log: string[] = [];

  private constructor(
    private readonly server: Server,
    /** The MCP endpoint: http://127.0.0.1:PORT/mcp. */
    readonly url: string,
    readonly authorization: FakeAuthorizationServer,
    /** Asks for no token at all (a server without auth). */
    private readonly open: boolean,
    private readonly hostileMetadata: HostileMetadata | undefined,
  ) {}

  /** The MCP server and its authorization server, each on its own port (two origins, as in the world). */
  static async start(options: Omit<FakeAuthorizationServerOptions, 'resource'> & { open?: true; hostileMetadata?: HostileMetadata } = {}): Promise<OAuthMcpServer> {
    let self: OAuthMcpServer | undefined;
    const server = createServer((request, response) => {
      void self!.handle(request, response).catch((err: unknown) => {
        if (!response.headersSent) response.writeHead(500);
        response.end(String(err));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const authorization = await FakeAuthorizationServer.start({ ...options, resource: url });
    self = new OAuthMcpServer(server, url, authorization, options.open === true, options.hostileMetadata);
    return self;
  }

  get metadataUrl(): string {
    return new URL('/.well-known/oauth-protected-resource/mcp', this.url).href;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
    await this.authorization.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    if (request.method === 'GET' && url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      const resource = this.hostileMetadata === 'other-resource' ? new URL('/elsewhere', this.url).href : this.url;
      const issuer = this.hostileMetadata === 'http-authorization-server' ? 'http://auth.example.test' : this.authorization.issuer;
      response.end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: ['docs.read'], bearer_methods_supported: ['header'] }));
      return;
    }
    if (url.pathname !== '/mcp') {
      response.writeHead(404).end();
      return;
    }
    const refusal = this.open ? undefined : this.refusal(request, url);
    if (refusal !== undefined) {
      this.log.push(`401 ${refusal}`);
      const error = request.headers.authorization ? ', error="invalid_token"' : '';
      response.writeHead(401, { 'WWW-Authenticate': `Bearer resource_metadata="${this.metadataUrl}"${error}`, 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ error: 'invalid_token', error_description: refusal }));
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const mcp = new McpServer({ name: 'oauth-docs', version: '1.0.0' });
    mcp.registerTool('lookup', { description: 'Looks a topic up in the docs.', inputSchema: { topic: z.string() } }, async ({ topic }) => {
      this.log.push(`call lookup ${topic}`);
      return { content: [{ type: 'text', text: `the docs say ${topic} is documented` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  }

  /** Why the request may not reach the server, or undefined when its token is good. */
  private refusal(request: IncomingMessage, url: URL): string | undefined {
    if (url.searchParams.has('access_token')) return 'a token in the query string is not accepted (OAuth 2.1 §5.2)';
    const header = request.headers.authorization ?? '';
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
    if (!match) return 'no bearer token (RFC 6750 §3)';
    const grant = this.authorization.introspect(match[1]!);
    if (!grant) return 'unknown or revoked token (RFC 6750 §3.1)';
    if (grant.expiresAt <= Date.now()) return 'expired token (RFC 6750 §3.1)';
    if (grant.resource !== this.url) return 'token issued for another resource (RFC 8707, MCP token audience validation)';
    return undefined;
  }
}
