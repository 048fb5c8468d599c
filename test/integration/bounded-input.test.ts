/**
 * Bounded input everywhere, through the real binary: a model server, an
 * ACP client and MCP servers (stdio, streamable HTTP) that send one line
 * that never ends each cost Crow a bounded read, and get a clear error
 * naming who sent it and the limit, instead of memory and time without end.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { runCrow, startCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

/**
 * Writes CHUNK to `out` until `total` bytes went or the reader went away,
 * honouring back-pressure; resolves how many bytes were handed over.
 */
function pour(out: NodeJS.WritableStream & { destroyed: boolean }, total: number): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    const done = (): void => resolve(written);
    out.once('close', done);
    out.once('error', done);
    const pump = (): void => {
      while (written < total && !out.destroyed) {
        written += CHUNK.length;
        if (!out.write(CHUNK)) return void out.once('drain', pump);
      }
      if (written >= total) out.end();
    };
    pump();
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** A server answering every request with `status` of `type` whose body starts with `start` and then runs on as one line of `total` bytes. */
async function endlessServer(type: string, start: string, total: number, status = 200): Promise<{ url: string; written: Promise<number>[]; close(): void }> {
  const written: Promise<number>[] = [];
  const server = createServer((request, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      if (request.method !== 'POST') return void response.writeHead(405).end();
      response.writeHead(status, { 'content-type': type });
      response.write(start);
      written.push(pour(response as unknown as NodeJS.WritableStream & { destroyed: boolean }, total));
    });
  });
  const url = await listen(server);
  return {
    url,
    written,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('bounded input: a line that never ends is cut off with a clear error', function () {
  this.timeout(120_000);
  const suite = binarySuite('bounded');

  const writeConfig = (text: string): void => {
    mkdirSync(join(suite.home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(suite.home, 'config', 'crow-agent', 'config.toml'), text);
  };

  for (const wire of ['anthropic', 'openai'] as const) {
    it(`${wire} wire: a model server that streams one 50 MB line fails the run after 16 MiB, naming the server`, async () => {
      const first =
        wire === 'anthropic'
          ? 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\ndata: '
          : 'data: ';
      const server = await endlessServer('text/event-stream', first, 50 * MiB);
      try {
        const base = wire === 'anthropic' ? server.url : `${server.url}/v1`;
        const env = isolatedEnv(suite.home, wire === 'anthropic' ? { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: base } : { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: base });
        const run = await runCrow(['run', 'Hello', '--cwd', suite.root, '--provider', wire, '--model', 'm'], env, suite.root);
        assert.equal(run.code, 1, run.stderr);
        assert.ok(run.stderr.includes(`the server at ${base} sent a line of more than 16 MiB (the most Crow reads in one line), so the answer was abandoned`), run.stderr);
        assert.equal(server.written.length, 1, 'not retried: a server that sends this is broken');
        const written = await server.written[0]!;
        assert.ok(written < 50 * MiB, `the reader stopped early, not after all of it (${written} bytes written)`);
      } finally {
        server.close();
      }
    });
  }

  it('a model server that answers an error with a body without end is read up to 1 MiB, and the error says so', async () => {
    const server = await endlessServer('application/json', '{"error":{"type":"api_error","message":"', 200 * MiB, 500);
    try {
      writeConfig('max_retries = 1\n');
      const env = isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url });
      const run = await runCrow(['run', 'Hello', '--cwd', suite.root, '--provider', 'anthropic', '--model', 'm'], env, suite.root);
      assert.equal(run.code, 1, run.stderr);
      assert.ok(run.stderr.includes(`the server at ${server.url} returned HTTP 500: it sent an error answer of more than 1 MiB (the most Crow reads at once)`), run.stderr);
      assert.ok(run.stderr.length < 10_000, `${run.stderr.length} characters of output`);
      assert.equal(server.written.length, 2, 'retried once, as the settings say');
      for (const written of await Promise.all(server.written)) assert.ok(written < 200 * MiB, `Crow stopped reading early (${written} bytes written)`);
    } finally {
      server.close();
    }
  });

  it('crow acp fed a 100 MB line closes the connection with a message on stderr, exit code 1', async () => {
    const acp = startCrow(['acp'], isolatedEnv(suite.home), suite.root);
    acp.child.stdin.on('error', () => undefined);
    const written = await pour(acp.child.stdin, 100 * MiB);
    const { code } = await acp.exited;
    assert.equal(code, 1, acp.stderr());
    assert.match(acp.stderr(), /error the client sent a line of more than 64 MiB \(the most crow acp reads in one message\), so the connection is closed/);
    assert.ok(written < 100 * MiB, `crow acp stopped reading early (${written} bytes taken)`);
    assert.equal(acp.stdout(), '', 'nothing but the protocol on stdout, and nothing was answered');
  });

  describe('an MCP server that sends one line that never ends is reported failed; the run goes on', () => {
    const answered = (): void => void suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Answered without it.' }] });
    const runWithServer = async (): Promise<{ code: number | null; stderr: string; stdout: string }> => {
      const env = isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl });
      return runCrow(['run', 'Hello', '--cwd', suite.root, '--provider', 'anthropic', '--model', 'claude-test'], env, suite.root);
    };

    it('over stdio', async () => {
      const script = join(suite.base, 'endless-mcp.js');
      writeFileSync(
        script,
        [
          '// Answers its first message with one line that never ends.',
          "process.stdout.on('error', () => process.exit(0));",
          "process.stdin.once('data', () => {",
          "  const chunk = Buffer.alloc(65536, 'a');",
          "  const pump = () => { while (process.stdout.write(chunk)); process.stdout.once('drain', pump); };",
          '  process.stdout.write(\'{"jsonrpc":"2.0","id":0,"result":"\');',
          '  pump();',
          '});',
        ].join('\n'),
      );
      writeConfig(`[mcp_servers.endless]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(script)}]\n`);
      answered();
      const run = await runWithServer();
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /MCP server "endless" could not start: it sent a line of more than 16 MiB \(the most Crow reads at once\)\. Its tools are unavailable/);
      assert.match(run.stdout + run.stderr, /Answered without it\./);
    });

    for (const [type, what] of [
      ['text/event-stream', 'an event'],
      ['application/json', 'a response'],
    ] as const) {
      it(`over streamable HTTP, answering with ${type}`, async () => {
        const server = await endlessServer(type, type === 'application/json' ? '{"jsonrpc":"2.0","id":0,"result":"' : 'event: message\ndata: ', 200 * MiB);
        try {
          writeConfig(`[mcp_servers.endless]\nurl = "${server.url}/mcp"\n`);
          answered();
          const run = await runWithServer();
          assert.equal(run.code, 0, run.stderr);
          assert.ok(run.stderr.includes(`MCP server "endless" could not start: it sent ${what} of more than 16 MiB (the most Crow reads at once). Its tools are unavailable`), run.stderr);
          assert.match(run.stdout + run.stderr, /Answered without it\./);
          const written = await Promise.all(server.written);
          assert.ok(written.every((bytes) => bytes < 200 * MiB), `Crow stopped reading early (${written.join(', ')} bytes written)`);
        } finally {
          server.close();
        }
      });
    }
  });
});
