/**
 * A reasoning model on OpenAI's Responses API, through the real binary
 * (`crow run` and `crow acp`) against the strict fake: a tool turn keeps its
 * reasoning item (with its encrypted content) and sends it back before its
 * function call, the session continues with it in its stored history, and no
 * request is refused.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedReply } from '../../testkit/fake-llm-server';
import { binarySuite } from '../support/binary-suite';
import { runCrow, startAcp } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const API = 'openai-responses';

/** Reasoning, then a call to read a.txt. */
const readWithReasoning: ScriptedReply = {
  blocks: [
    { type: 'thinking', text: 'The file a.txt should say.' },
    { type: 'tool_call', name: 'read_file', arguments: { path: 'a.txt' } },
  ],
};
const answer = (text: string): ScriptedReply => ({ blocks: [{ type: 'thinking', text: 'I know enough.' }, { type: 'text', text }] });

type Item = Record<string, any>;

/** The input items of the route's requests, by request. */
function inputsOf(requests: { body: any }[]): Item[][] {
  return requests.map((request) => request.body.input as Item[]);
}

/** The reasoning item right before the call of `callName` in an input, where Crow must send it back. */
function reasoningBefore(input: Item[], callName: string): Item | undefined {
  const call = input.findIndex((item) => item.type === 'function_call' && item.name === callName);
  return call > 0 && input[call - 1]!.type === 'reasoning' ? input[call - 1] : undefined;
}

describe("a reasoning model on OpenAI's Responses API, through the binary", function () {
  this.timeout(60_000);
  const suite = binarySuite('responses');

  /** config.toml naming the fake's Responses route as provider "gpt". */
  function configure(): Record<string, string> {
    mkdirSync(join(suite.home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(
      join(suite.home, 'config', 'crow-agent', 'config.toml'),
      `provider = "gpt"\nthinking_budget = 8000\nmax_output_tokens = 4096\n[providers.gpt]\ntype = "openai-responses"\nbase_url = "${suite.llm.openaiBaseUrl}"\napi_key_env = "OPENAI_API_KEY"\ndefault_model = "gpt-5.4"\n`,
    );
    writeFileSync(join(suite.root, 'a.txt'), 'hello from a\n');
    return { OPENAI_API_KEY: 'sk-test' };
  }

  afterEach(() => assert.deepEqual(suite.llm.takeRefusals(), [], 'no request was refused'));

  it('crow run: the tool turn sends its reasoning item back unchanged, and --continue goes on with it', async () => {
    const env = isolatedEnv(suite.home, configure());
    suite.llm.enqueue(API, readWithReasoning, answer('It says hello from a.'), answer('Still hello from a.'));

    const first = await runCrow(['run', 'What does a.txt say?', '--agent', 'build', '--allow', 'all', '--no-undo'], env, suite.root);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout.trim(), 'It says hello from a.');
    assert.match(first.stderr, /The file a\.txt should say\./, 'the reasoning summary is shown');

    const second = await runCrow(['run', 'And now?', '--continue', '--agent', 'build', '--no-undo'], env, suite.root);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout.trim(), 'Still hello from a.');

    const requests = suite.llm.requestsFor(API);
    assert.equal(requests.length, 3);
    for (const { body } of requests) {
      assert.equal(body.store, false);
      assert.deepEqual(body.include, ['reasoning.encrypted_content']);
      assert.deepEqual(body.reasoning, { effort: 'medium', summary: 'auto' });
      assert.equal(body.max_output_tokens, 4096);
    }
    const [, afterTool, continued] = inputsOf(requests);
    const sentBack = reasoningBefore(afterTool!, 'read_file');
    assert.ok(sentBack, `the reasoning item goes right before its call: ${JSON.stringify(afterTool!.map((item) => item.type))}`);
    assert.equal(sentBack.id, 'rs_fake_1_0');
    assert.match(sentBack.encrypted_content, /^gAAAA/);
    assert.deepEqual(sentBack.summary, [{ type: 'summary_text', text: 'The file a.txt should say.' }]);
    assert.deepEqual(reasoningBefore(continued!, 'read_file'), sentBack, 'the stored session keeps the item byte for byte');
    assert.match(JSON.stringify(continued), /And now\?/);
  });

  it('crow acp: two prompts in one session on the Responses API both end their turn', async () => {
    const env = configure();
    suite.llm.enqueue(API, readWithReasoning, answer('It says hello from a.'), answer('Still hello from a.'));
    const acp = startAcp(suite.root, suite.home, env);
    try {
      await acp.client.initialize();
      const { sessionId } = await acp.client.newSession(suite.root);
      assert.equal((await acp.client.prompt(sessionId, 'What does a.txt say?')).stopReason, 'end_turn');
      assert.equal((await acp.client.prompt(sessionId, 'And now?')).stopReason, 'end_turn');
      assert.match(acp.client.said(sessionId), /It says hello from a\.[\s\S]*Still hello from a\./);
      assert.match(acp.client.thought(sessionId), /The file a\.txt should say\./);
    } finally {
      assert.equal(await acp.stop(), 0, acp.stderr());
    }
    const [, afterTool, second] = inputsOf(suite.llm.requestsFor(API));
    assert.equal(reasoningBefore(afterTool!, 'read_file')?.id, 'rs_fake_1_0');
    assert.deepEqual(reasoningBefore(second!, 'read_file'), reasoningBefore(afterTool!, 'read_file'));
  });
});
