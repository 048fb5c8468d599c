/**
 * `npm run fake-model`: the project's fake LLM server with a small
 * interactive script (testkit/fake-model-script.ts), on loopback, until
 * Ctrl-C. It prints the environment lines that point `crow run`, `crow acp`
 * or the VS Code extension at it: no key, no network, every tool call real.
 * `--port N` picks the port (default 4141; 0: any free one).
 */
import { parseArgs } from 'node:util';
import { FakeLlmServer } from '../testkit/fake-llm-server';
import { FAKE_MODEL_HELP, fakeModelResponder } from '../testkit/fake-model-script';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '4141' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`fake-model: --port takes a port number (0 to 65535), not "${values.port}".\n`);
    process.exitCode = 2;
    return;
  }
  // A local server's way of speaking Chat Completions: Crow takes a loopback base URL for one (flavor generic).
  const server = await FakeLlmServer.start({ port, chatServer: 'llama.cpp' }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') process.stderr.write(`fake-model: port ${port} is taken; pick another with npm run fake-model -- --port N (0: any free one).\n`);
    throw err;
  });
  server.respondWith('anthropic', fakeModelResponder('anthropic'));
  server.respondWith('openai', fakeModelResponder('openai'));
  const out = (line = ''): boolean => process.stdout.write(`${line}\n`);
  out(`A scripted fake model is listening on ${server.url} (not a real model; nothing leaves this machine).`);
  out('In another terminal, set these and run crow as usual:');
  out();
  out('export CROW_PROVIDER=anthropic');
  out(`export ANTHROPIC_BASE_URL=${server.anthropicBaseUrl}`);
  out('export ANTHROPIC_API_KEY=fake-model-not-a-real-key');
  out('export CROW_MODEL=fake-model');
  out();
  out(`(or the Chat Completions route, which needs no key: CROW_PROVIDER=openai OPENAI_BASE_URL=${server.openaiBaseUrl} CROW_MODEL=fake-model)`);
  out();
  out('node dist/crow.js run "run ls"          # add --allow execute to skip the approval');
  out(FAKE_MODEL_HELP);
  out('Ctrl-C stops it.');
  const stop = (): void => {
    process.stdout.write(`\nfake-model: stopped after ${server.requests.length} request${server.requests.length === 1 ? '' : 's'}.\n`);
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`fake-model failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
