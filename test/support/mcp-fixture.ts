/**
 * The MCP test server (test/fixtures/mcp-server.ts) as the MCP tests start
 * it, and the environment their in-process `crow run` uses.
 */
import { join, resolve } from 'node:path';

/** The fixture server's source. */
export const FIXTURE = resolve(__dirname, '../fixtures/mcp-server.ts');
/** Node's arguments that run the fixture server from its TypeScript source. */
export const TSX_FIXTURE = ['--require', require.resolve('tsx/cjs'), FIXTURE];

/** Config and data under `scratch`, the fake model server's Anthropic API, and the fixture's log file passed on when given. */
export function fixtureRunEnv(scratch: string, anthropicBaseUrl: string, log?: string): Record<string, string> {
  return {
    XDG_CONFIG_HOME: join(scratch, 'config'),
    XDG_DATA_HOME: join(scratch, 'data'),
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: anthropicBaseUrl,
    ...(log !== undefined ? { MCP_FIXTURE_LOG: log } : {}),
  };
}
