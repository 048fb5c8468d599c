/**
 * Seed 002's Modify and runtime approval requests through `crow acp` (the
 * built binary) and the SDK's client. ACP's permission options carry no
 * arguments, so Modify is a fifth option offered to clients that advertise
 * form elicitation: choosing it opens an elicitation/create form with the
 * arguments.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreateElicitationRequest } from '@agentclientprotocol/sdk';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import type { TestClientOptions } from '../support/acp-client';
import { type AcpProcess, startAcp } from '../support/crow-binary';

const call = (name: string, args: unknown) => ({ blocks: [{ type: 'tool_call' as const, name, arguments: args }] });
const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

describe('crow acp: Modify (edit the arguments, then allow) and request_approval', function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let workspace: string;
  let home: string;
  let agent: AcpProcess | undefined;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    workspace = mkdtempSync(join(tmpdir(), 'crow-acp-modify-ws-'));
    home = mkdtempSync(join(tmpdir(), 'crow-acp-modify-home-'));
  });
  afterEach(async () => {
    assert.equal(await agent?.stop(), 0);
    agent = undefined;
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  async function session(options: TestClientOptions) {
    agent = startAcp(workspace, home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl }, options);
    await agent.client.initialize();
    const { sessionId } = await agent.client.newSession(workspace);
    return { client: agent.client, id: sessionId };
  }
  const toModel = (request: number) => JSON.stringify(server.requestsFor('anthropic')[request]!.body.messages);
  const form = (request: CreateElicitationRequest) => request as Extract<CreateElicitationRequest, { mode: 'form' }>;

  it('offers Modify to a client with form elicitation; the form holds the arguments, and the call runs as the person edited it', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'a.txt', content: 'from the model\n' }), say('Written.'));
    const { client, id } = await session({
      capabilities: { elicitation: { form: {} } },
      permission: () => ({ optionId: 'modify' }),
      elicit: () => ({ action: 'accept', content: { path: 'b.txt', content: 'from the person\n' } }),
    });
    assert.equal((await client.prompt(id, 'Write a file')).stopReason, 'end_turn');

    const options = client.permissionRequests[0]!.options;
    assert.deepEqual(options.map((o) => [o.optionId, o.kind]), [
      ['allow_once', 'allow_once'], ['allow_always', 'allow_always'], ['reject_once', 'reject_once'], ['reject_always', 'reject_always'], ['modify', 'allow_once'],
    ], 'Modify comes last, so a client that picks the first allow_once still allows plainly');
    const asked = form(client.elicitations[0]!);
    assert.equal(asked.mode, 'form');
    assert.equal((asked as { toolCallId?: string }).toolCallId, client.permissionRequests[0]!.toolCall.toolCallId, 'the form is tied to the tool call');
    assert.match(asked.message, /Edit the arguments of write_file, then submit to allow it: Write a\.txt/);
    assert.deepEqual(
      Object.fromEntries(Object.entries(asked.requestedSchema.properties ?? {}).map(([name, p]) => [name, [p.type, (p as { default?: unknown }).default]])),
      { path: ['string', 'a.txt'], content: ['string', 'from the model\n'] },
    );
    assert.ok(!existsSync(join(workspace, 'a.txt')));
    assert.equal(readFileSync(join(workspace, 'b.txt'), 'utf8'), 'from the person\n');
    assert.match(toModel(1), /The user edited this call's arguments before allowing it\. It ran with: \{\\"path\\":\\"b\.txt\\"/);
  });

  it('a client without form elicitation gets the four options; one that knows Crow may still send edited arguments in _meta', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'a.txt', content: 'x\n' }), say('Done.'));
    const { client, id } = await session({ permission: () => ({ optionId: 'modify', _meta: { 'crow/arguments': { path: 'c.txt', content: 'y\n' } } }) });
    await client.prompt(id, 'Write');
    assert.deepEqual(client.permissionRequests[0]!.options.map((o) => o.optionId), ['allow_once', 'allow_always', 'reject_once', 'reject_always']);
    assert.equal(client.elicitations.length, 0);
    assert.equal(readFileSync(join(workspace, 'c.txt'), 'utf8'), 'y\n');
  });

  it('edited arguments that do not fit never run: sent in _meta they are refused, and the model is told', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'a.txt', content: 'x\n' }), say('Understood.'));
    const { client, id } = await session({ permission: () => ({ optionId: 'modify', _meta: { 'crow/arguments': { path: 42 } } }) });
    await client.prompt(id, 'Write');
    assert.ok(!existsSync(join(workspace, 'a.txt')));
    assert.match(toModel(1), /Permission denied by the user/);
  });

  it('request_approval reaches the client as a permission request with Approve and Deny, and the model reads the answer', async () => {
    server.enqueue('anthropic', call('request_approval', { question: 'Delete the build folder?', details: 'It holds 2 GB.' }), say('Deleting.'));
    const { client, id } = await session({ permission: () => 'allow_once' });
    await client.prompt(id, 'Clean up');
    const asked = client.permissionRequests[0]!;
    assert.deepEqual(asked.options.map((o) => [o.optionId, o.name]), [['allow_once', 'Approve'], ['reject_once', 'Deny']]);
    assert.match(asked.toolCall.title ?? '', /Delete the build folder\?/);
    assert.match(toModel(1), /Approved: the person said yes/);
  });

  it('request_approval: the person approves a changed version in the form; an edit that does not fit comes back as typed, with why', async () => {
    server.enqueue('anthropic', call('request_approval', { question: 'Delete the build folder?' }), say('Deleting only the cache.'));
    const answers = [{ question: '   ' }, { question: 'Delete build/cache only?', details: 'Keep the rest.' }];
    const { client, id } = await session({
      capabilities: { elicitation: { form: {} } },
      permission: () => ({ optionId: 'modify' }),
      elicit: () => ({ action: 'accept', content: answers.shift()! }),
    });
    await client.prompt(id, 'Clean up');
    assert.deepEqual(client.permissionRequests[0]!.options.map((o) => o.optionId), ['allow_once', 'reject_once', 'modify']);
    assert.equal(client.elicitations.length, 2);
    const again = form(client.elicitations[1]!);
    assert.match(again.message, /Your edit does not fit: question: .*Correct it and submit, or cancel to refuse\./);
    assert.equal((again.requestedSchema.properties!.question as { default?: unknown }).default, '   ', 'the bad edit is shown as typed');
    assert.match(toModel(1), /Approved with changes[\s\S]*Delete build\/cache only\?/);
  });

  it('a form the person cancels refuses the call', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'a.txt', content: 'x\n' }), say('OK.'));
    const { client, id } = await session({ capabilities: { elicitation: { form: {} } }, permission: () => ({ optionId: 'modify' }), elicit: () => ({ action: 'cancel' }) });
    await client.prompt(id, 'Write');
    assert.ok(!existsSync(join(workspace, 'a.txt')));
    assert.match(toModel(1), /Permission denied by the user/);
  });
});
