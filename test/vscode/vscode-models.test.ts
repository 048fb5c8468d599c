// Runs inside a real VS Code (npm run test:vscode); not part of the Node suite.
// Crow's own agents on a model VS Code offers: provider type "vscode", against
// the language-model provider of test/vscode-lm-fixture/ (vendor "crow-test"),
// which the harness loads next to Crow and which refuses what VS Code's
// vendors refuse (tool results without their call, bad tool names, empty
// messages, requests after cancellation).
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Crow } from '../../src/adapters/vscode/crow';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { applySettings } from './support/fake-llm';
import { waitFor } from './support/wait-for';

const MODEL = 'crow-test/scripted-tools';

interface Reply {
  text?: string[];
  toolCalls?: { name: string; input: object; callId?: string }[];
  hang?: boolean;
}

interface RecordedPart {
  kind: string;
  text?: string;
  callId?: string;
  name?: string;
  content?: RecordedPart[];
}

/** The API test/vscode-lm-fixture/extension.js returns from activate. */
interface LmFixture {
  vendor: string;
  enqueue(...replies: Reply[]): void;
  pending(): number;
  requests: { model: string; messages: { role: string; parts: RecordedPart[] }[]; tools: string[] }[];
  refusals: string[];
  counted(): number;
  reset(): void;
}

function root(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the harness opens a workspace folder');
  return folder.uri.fsPath;
}

function recorder(crow: Crow) {
  const posted: HostMessage[] = [];
  const subscription = crow.chat.onDidPost((message) => posted.push(structuredClone(message)));
  const events = (): TranscriptEvent[] => posted.flatMap((message) => (message.type === 'events' ? message.events : []));
  return { posted, events, dispose: () => subscription.dispose() };
}

function ending(events: TranscriptEvent[]): Extract<TranscriptEvent, { type: 'prompt_end' }> {
  const end = events.filter((event) => event.type === 'prompt_end').at(-1);
  assert.ok(end && end.type === 'prompt_end', `the prompt ended: ${JSON.stringify(events.slice(-3))}`);
  return end;
}

suite("VS Code's language models as Crow's provider", () => {
  let crow: Crow;
  let lm: LmFixture;
  let restore: (() => Promise<void>) | undefined;

  suiteSetup(async () => {
    const fixture = vscode.extensions.getExtension<LmFixture>('crow-agent.crow-lm-fixture');
    assert.ok(fixture, 'the harness loads test/vscode-lm-fixture next to Crow');
    lm = await fixture.activate();
    const extension = vscode.extensions.getExtension<Crow>('crow-agent.crow-agent');
    assert.ok(extension, `Crow is loaded: ${vscode.extensions.all.map((each) => each.id).filter((id) => !id.startsWith('vscode.')).join(', ')}`);
    crow = await extension.activate();
    const engine = crow.engine();
    for (let attempt = 0; attempt < 40 && !engine.knownVscodeModels().some((model) => model.id === MODEL); attempt++) {
      await engine.refreshVscodeModels();
      if (!engine.knownVscodeModels().some((model) => model.id === MODEL)) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.ok(engine.knownVscodeModels().some((model) => model.id === MODEL), `Crow lists ${MODEL}: ${JSON.stringify(engine.knownVscodeModels())}`);
    restore = await applySettings({
      provider: 'vscode',
      model: MODEL,
      defaultAgent: 'build',
      'permissions.read': 'allow',
      'permissions.write': 'allow',
    });
    await vscode.commands.executeCommand('crow.chat.focus');
  });
  setup(async () => {
    lm.reset();
    await crow.controller().newSession();
  });
  suiteTeardown(async () => {
    await restore?.();
  });

  test("lists VS Code's tool-calling models, never Crow's own, with their input windows", () => {
    const models = crow.engine().knownVscodeModels();
    assert.ok(models.every((model) => model.vendor !== 'crow'), JSON.stringify(models));
    const tiny = models.find((model) => model.id === 'crow-test/tiny-window');
    assert.deepEqual(tiny && { window: tiny.maxInputTokens, vision: tiny.vision }, { window: 60, vision: false });
  });

  test('a prompt runs on a VS Code model: text streams back, a tool call runs, its result goes back with the same id', async () => {
    writeFileSync(join(root(), 'lm-notes.md'), 'The answer is 42.\n');
    lm.enqueue({ text: ['Reading ', 'the notes.'], toolCalls: [{ name: 'read_file', input: { path: 'lm-notes.md' } }] }, { text: ['The notes say ', '42.'] });
    const view = recorder(crow);
    await crow.controller().handle({ type: 'send', text: 'What do lm-notes.md say?' });
    view.dispose();
    assert.deepEqual(lm.refusals, []);
    // build hands the turn back after each answer.
    assert.equal(ending(view.events()).status, 'needs_input');
    assert.equal(lm.requests.length, 2);
    const [first, second] = lm.requests;
    assert.equal(first!.model, 'scripted-tools');
    assert.ok(first!.tools.includes('read_file'), 'tools are offered as LanguageModelChatTool');
    assert.match(first!.messages[0]!.parts[0]!.text ?? '', /\S/, 'the system prompt opens the first user message');
    const last = second!.messages.at(-1)!;
    const result = last.parts.find((part) => part.kind === 'tool_result');
    const call = second!.messages.at(-2)!.parts.find((part) => part.kind === 'tool_call');
    assert.ok(call && result, JSON.stringify(second!.messages.slice(-2)));
    assert.equal(result.callId, call.callId);
    assert.match(JSON.stringify(result.content), /The answer is 42\./);
    assert.ok(lm.counted() > 0, 'tokens are counted by the model');
    const said = view.events().flatMap((event) => (event.type === 'text_delta' ? [event.delta] : [])).join('');
    assert.match(said, /The notes say 42\./);
  });

  test('a reviewed run ends with builder and reviewer both on the VS Code model', async () => {
    await crow.controller().handle({ type: 'pick_agent', agent: 'pair' });
    lm.enqueue(
      { toolCalls: [{ name: 'write_file', input: { path: 'lm-reviewed.md', content: '# Reviewed\n' } }] },
      { toolCalls: [{ name: 'task_complete', input: { summary: 'Wrote lm-reviewed.md.' } }] },
      { toolCalls: [{ name: 'task_complete', input: { summary: 'Approved.' } }] },
    );
    const view = recorder(crow);
    await crow.controller().handle({ type: 'send', text: 'Write lm-reviewed.md with a heading' });
    view.dispose();
    assert.deepEqual(lm.refusals, []);
    assert.equal(lm.pending(), 0, 'every scripted answer was asked for');
    assert.equal(ending(view.events()).status, 'completed');
    assert.equal(readFileSync(join(root(), 'lm-reviewed.md'), 'utf8'), '# Reviewed\n');
    assert.ok(view.events().some((event) => event.type === 'verdict' && event.verdict === 'approved'), 'the reviewer approved');
    assert.ok(lm.requests.every((request) => request.model === 'scripted-tools'));
    await crow.controller().handle({ type: 'pick_agent', agent: 'build' });
  });

  test('cancel stops the request in VS Code, and the session goes on without a refused history', async () => {
    lm.enqueue({ text: ['Starting'], hang: true }, { text: ['Done now.'] });
    const view = recorder(crow);
    const sent = crow.controller().handle({ type: 'send', text: 'Take your time' });
    await waitFor('the request', () => lm.requests.length === 1);
    await vscode.commands.executeCommand('crow.cancel');
    await sent;
    assert.equal(ending(view.events()).status, 'cancelled');
    await crow.controller().handle({ type: 'send', text: 'Go on' });
    view.dispose();
    assert.deepEqual(lm.refusals, []);
    assert.equal(ending(view.events()).status, 'needs_input');
    assert.equal(lm.requests.length, 2, 'the cancelled request was not sent again');
  });

  test('a model VS Code does not offer ends the prompt saying which ones it does', async () => {
    const back = await applySettings({ model: 'crow-test/no-such-model' });
    try {
      const view = recorder(crow);
      await crow.controller().handle({ type: 'send', text: 'Hello' });
      view.dispose();
      const end = ending(view.events());
      assert.equal(end.status, 'error');
      assert.match(JSON.stringify(view.events()), /VS Code offers no model \\"crow-test\/no-such-model\\"\. VS Code offers: [^"]*crow-test\/scripted-tools/);
    } finally {
      await back();
    }
  });

  test('a prompt over the model\'s input window is not sent: it ends saying it does not fit', async () => {
    const back = await applySettings({ model: 'crow-test/tiny-window' });
    try {
      const view = recorder(crow);
      await crow.controller().handle({ type: 'send', text: 'Hello' });
      view.dispose();
      assert.equal(ending(view.events()).status, 'error');
      assert.match(JSON.stringify(view.events()), /does not fit the model's input window \(60 tokens\)/);
      assert.equal(lm.requests.length, 0, 'Crow counted with the model and did not send');
    } finally {
      await back();
    }
  });

  test('the test models refuse what VS Code\'s vendors refuse, so a run that passes sent none of it', async () => {
    const [model] = await vscode.lm.selectChatModels({ vendor: lm.vendor, id: 'scripted-tools' });
    assert.ok(model);
    const { User, Assistant } = vscode.LanguageModelChatMessage;
    const tool = { name: 'read_file', description: 'Reads a file', inputSchema: { type: 'object' } };
    const send = async (messages: vscode.LanguageModelChatMessage[], tools = [tool], token?: vscode.CancellationToken): Promise<void> => {
      const response = await model.sendRequest(messages, { tools }, token);
      for await (const _part of response.stream) {
        // drained: a refusal may also arrive as the stream's error
      }
    };
    const refusedWith = async (pattern: RegExp, attempt: Promise<void>): Promise<void> => {
      await assert.rejects(attempt, (error: Error) => pattern.test(`${error.message} ${lm.refusals.at(-1) ?? ''}`));
    };
    await refusedWith(/unexpected tool_use_id/, send([User('hi'), Assistant('ok'), User([new vscode.LanguageModelToolResultPart('call_x', [new vscode.LanguageModelTextPart('out')])])]));
    await refusedWith(/without tool_result blocks/, send([User('hi'), Assistant([new vscode.LanguageModelToolCallPart('call_y', 'read_file', {})]), User('and?')]));
    await refusedWith(/must match/, send([User('hi')], [{ ...tool, name: 'read file' }]));
    await refusedWith(/must match/, send([User('hi')], [{ ...tool, name: 'x'.repeat(65) }]));
    await refusedWith(/non-empty/, send([User('hi'), Assistant([new vscode.LanguageModelTextPart('')]), User('again')]));
    await refusedWith(/at least one message/, send([]));
    const cancelled = new vscode.CancellationTokenSource();
    cancelled.cancel();
    await assert.rejects(send([User('hi')], [tool], cancelled.token));
    assert.equal(lm.pending(), 0);
  });
});
