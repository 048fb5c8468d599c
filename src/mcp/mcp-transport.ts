import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type * as Sse from '@modelcontextprotocol/sdk/client/sse.js';
import type * as Stdio from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as StreamableHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpTransportConfig } from './server-config';

/** How much of a stdio server's stderr is kept, to say why it stopped. */
const STDERR_TAIL_CHARS = 2_000;

/** A transport for one connection attempt, and what it can tell about a failure. */
export interface OpenedTransport {
  transport: Transport;
  /** The end of what the server wrote to stderr, for reports; '' when it wrote nothing (or is not a process). */
  stderrTail(): string;
  /** Ends the server's session politely (streamable HTTP) before the transport closes. */
  release(): Promise<void>;
}

/**
 * The SDK transport a server config asks for, required (not imported) here
 * so that sessions without MCP servers never load the SDK.
 * Stdio servers start in `cwd` (the session's workspace) with the SDK's
 * safe default environment plus the variables the config passes; their
 * stderr is kept rather than mixed into ours.
 */
export function openTransport(config: McpTransportConfig, cwd: string): OpenedTransport {
  switch (config.type) {
    case 'stdio': {
      const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js') as typeof Stdio;
      const transport = new StdioClientTransport({ command: config.command, args: config.args, env: config.env, cwd, stderr: 'pipe' });
      let tail = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
      });
      return { transport, stderrTail: () => tail.trim(), release: async () => undefined };
    }
    case 'http': {
      const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof StreamableHttp;
      const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
      return { transport, stderrTail: () => '', release: () => transport.terminateSession().catch(() => undefined) };
    }
    case 'sse': {
      const { SSEClientTransport } = require('@modelcontextprotocol/sdk/client/sse.js') as typeof Sse;
      const transport = new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
      return { transport, stderrTail: () => '', release: async () => undefined };
    }
  }
}
