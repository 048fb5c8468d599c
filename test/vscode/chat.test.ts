// Runs inside a real VS Code (npm run test:vscode); not part of the Node suite.
// The chat view's host side driven with the messages its webview posts, the
// commands, API keys, and @crow in the native chat, against the fake LLM server.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Crow } from '../../src/adapters/vscode/crow';
import type { HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { useFakeLlm } from './support/fake-llm';
import { waitFor } from './support/wait-for';

const SECRET = 'sk-crow-e2e-SECRET-0123456789';

function root(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the harness opens a workspace folder');
  return folder.uri.fsPath;
}

async function crowApi(): Promise<Crow> {
  const extension = vscode.extensions.getExtension<Crow>('crow-agent.crow-agent');
  assert.ok(extension);
  return extension.activate();
}

/** Records what the host posts to the chat view. */
function recorder(crow: Crow) {
  const posted: HostMessage[] = [];
  const subscription = crow.chat.onDidPost((message) => posted.push(structuredClone(message)));
  const events = (): TranscriptEvent[] => posted.flatMap((message) => (message.type === 'events' ? message.events : []));
  return { posted, events, dispose: () => subscription.dispose() };
}

suite('Crow chat in VS Code', () => {
  const server = useFakeLlm({ permissions: { write: 'ask', execute: 'ask' } });
  let crow: Crow;

  suiteSetup(async () => {
    crow = await crowApi();
    await vscode.commands.executeCommand('crow.chat.focus');
  });
  setup(async () => {
    await crow.controller().newSession();
  });

  test('every contributed command is registered', async () => {
    const extension = vscode.extensions.getExtension('crow-agent.crow-agent')!;
    const contributed = (extension.packageJSON.contributes.commands as { command: string }[]).map((entry) => entry.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(contributed.filter((command) => !registered.has(command)), []);
  });

  test('a prompt from the chat view edits a file through WorkspaceEdit after an approval, and Ctrl+Z takes it back', async () => {
    const file = join(root(), 'chat-edit.md');
    writeFileSync(file, '# Notes\n');
    const view = recorder(crow);
    server().enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'edit_file', arguments: { path: 'chat-edit.md', old_string: '# Notes\n', new_string: '# Notes\n\n- shipped\n' } }] },
      { blocks: [{ type: 'text', text: 'Added **shipped**.' }] },
    );
    const sent = crow.controller().handle({ type: 'send', text: 'Add "- shipped" to chat-edit.md' });
    const approval = await waitFor('the approval', () => view.posted.find((message) => message.type === 'approval'));
    assert.ok(approval.type === 'approval');
    assert.equal(approval.request.category, 'write');
    await crow.controller().handle({ type: 'approve', id: approval.request.id, decision: 'allow_once' });
    await sent;
    view.dispose();

    assert.equal(readFileSync(file, 'utf8'), '# Notes\n\n- shipped\n', 'saved to disk');
    const end = view.events().find((event) => event.type === 'tool_end');
    assert.ok(end && end.type === 'tool_end' && end.status === 'completed', JSON.stringify(end));
    assert.equal(end.diff?.path, 'chat-edit.md');
    const document = await vscode.workspace.openTextDocument(file);
    assert.equal(document.isDirty, false);
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), '# Notes\n', 'the edit is one undo step in the editor');
    // Back to the agent's text on disk: in the browser workbench files.autoSave defaults to afterDelay, so the undone text may have been saved.
    await vscode.commands.executeCommand('redo');
    assert.equal(document.getText(), '# Notes\n\n- shipped\n');
    await document.save();

    const opening = recorder(crow);
    await crow.controller().handle({ type: 'open_diff', callId: end.callId });
    opening.dispose();
    assert.deepEqual(opening.events().filter((event) => event.type === 'notice'), [], 'Open diff shows no error');
    const tab = await waitFor('the diff editor', () => vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((candidate) => candidate.input instanceof vscode.TabInputTextDiff));
    const input = tab.input as vscode.TabInputTextDiff;
    // A later change to the file must not change what this tab shows: both sides belong to the call.
    writeFileSync(file, '# Something else entirely\n');
    const [before, after] = await Promise.all([vscode.workspace.openTextDocument(input.original), vscode.workspace.openTextDocument(input.modified)]);
    assert.equal(before.getText(), '# Notes\n');
    assert.equal(after.getText(), '# Notes\n\n- shipped\n');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Undo Last Run puts the files back as they were before the prompt', async () => {
    const file = join(root(), 'undo-me.txt');
    writeFileSync(file, 'before\n');
    await vscode.workspace.getConfiguration('crow').update('permissions.write', 'allow', vscode.ConfigurationTarget.Workspace);
    try {
      server().enqueue(
        'openai',
        { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'undo-me.txt', content: 'after\n' } }] },
        { blocks: [{ type: 'text', text: 'Done.' }] },
      );
      await crow.controller().handle({ type: 'send', text: 'Change undo-me.txt' });
      assert.equal(readFileSync(file, 'utf8'), 'after\n');
      await vscode.commands.executeCommand('crow.undoLastRun', { confirmed: true });
      assert.equal(readFileSync(file, 'utf8'), 'before\n');
    } finally {
      await vscode.workspace.getConfiguration('crow').update('permissions.write', 'ask', vscode.ConfigurationTarget.Workspace);
    }
  });

  test('a bash call asks, runs once allowed, and its output reaches the card', async () => {
    const view = recorder(crow);
    server().enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo crow-bash-ran' } }] },
      { blocks: [{ type: 'text', text: 'It ran.' }] },
    );
    const sent = crow.controller().handle({ type: 'send', text: 'Run echo' });
    const approval = await waitFor('the approval', () => view.posted.find((message) => message.type === 'approval'));
    assert.ok(approval.type === 'approval');
    assert.equal(approval.request.command, 'echo crow-bash-ran');
    await crow.controller().handle({ type: 'approve', id: approval.request.id, decision: 'allow_once' });
    await sent;
    view.dispose();
    const end = view.events().find((event) => event.type === 'tool_end');
    assert.ok(end && end.type === 'tool_end');
    assert.equal(end.status, 'completed', end.output);
    assert.match(end.output, /crow-bash-ran/);
  });

  test('an edit approval carries its diff; while it waits, the view has a badge and the status bar says so, also with the view hidden', async () => {
    const file = join(root(), 'approval-signals.md');
    writeFileSync(file, '# Before\n');
    const view = recorder(crow);
    server().enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'edit_file', arguments: { path: 'approval-signals.md', old_string: '# Before', new_string: '# After' } }] },
      { blocks: [{ type: 'text', text: 'Changed.' }] },
    );
    try {
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      const sent = crow.controller().handle({ type: 'send', text: 'Change the heading' });
      const approval = await waitFor('the approval', () => view.posted.find((message) => message.type === 'approval'));
      assert.ok(approval.type === 'approval');
      assert.match(approval.request.diff?.unified ?? '', /-# Before\n\+# After/, 'the change is shown before anyone decides');
      assert.equal(approval.request.diff?.path, 'approval-signals.md');
      assert.equal(crow.chat.approvals.count, 1, 'the badge counts it');
      assert.match(crow.chat.approvals.statusText ?? '', /Crow: approval waiting/);
      await crow.controller().handle({ type: 'approve', id: approval.request.id, decision: 'allow_once' });
      await sent;
      assert.equal(crow.chat.approvals.count, 0);
      assert.equal(crow.chat.approvals.statusText, undefined, 'the item goes once answered');
      const end = view.events().find((event) => event.type === 'tool_end');
      assert.ok(end && end.type === 'tool_end' && end.waitedMs !== undefined, 'the wait is told apart from the run time');
      assert.equal(end.approval, 'allow_once', 'the answer is kept with the call, so a resumed session shows it too');
    } finally {
      view.dispose();
      rmSync(file, { force: true });
      await vscode.commands.executeCommand('crow.chat.focus');
    }
  });

  test('a new session starts its meter at zero', async () => {
    const view = recorder(crow);
    server().enqueue('openai', { blocks: [{ type: 'text', text: 'Counted.' }], usage: { input: 245_000, output: 2_400 } });
    await crow.controller().handle({ type: 'send', text: 'Count me' });
    await crow.controller().newSession();
    view.dispose();
    const meter = view.posted.filter((message) => message.type === 'meter').at(-1);
    assert.ok(meter && meter.type === 'meter');
    assert.deepEqual([meter.session.inputTokens, meter.session.outputTokens, meter.prompt.inputTokens], [0, 0, 0]);
  });

  test('cancel stops a prompt waiting for an approval and withdraws the question', async () => {
    const view = recorder(crow);
    server().enqueue('openai', { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo never' } }] });
    const sent = crow.controller().handle({ type: 'send', text: 'Run something' });
    await waitFor('the approval', () => view.posted.find((message) => message.type === 'approval'));
    await vscode.commands.executeCommand('crow.cancel');
    await sent;
    view.dispose();
    assert.ok(view.posted.some((message) => message.type === 'approval_done' && message.decision === 'withdrawn'));
    const end = view.events().at(-1);
    assert.ok(end && end.type === 'prompt_end');
    assert.equal(end.status, 'cancelled');
  });

  test('an API key set by command is sent to the provider but never to the view', async () => {
    const view = recorder(crow);
    await vscode.commands.executeCommand('crow.setApiKey', 'OPENAI_API_KEY', SECRET);
    try {
      server().enqueue('openai', { blocks: [{ type: 'text', text: 'Keyed.' }] });
      await crow.controller().handle({ type: 'send', text: 'Hello with a key' });
      assert.equal(server().requests.at(-1)?.headers.authorization, `Bearer ${SECRET}`);
      assert.doesNotMatch(JSON.stringify(view.posted), new RegExp(SECRET));
    } finally {
      await vscode.commands.executeCommand('crow.clearApiKey', 'OPENAI_API_KEY');
      view.dispose();
    }
    assert.deepEqual(crow.keys.names(), []);
  });

  test('commands reach the chat: send selection, send file, pick agent and model', async () => {
    const view = recorder(crow);
    const file = join(root(), 'selected.ts');
    writeFileSync(file, 'export const answer = 42;\n');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    editor.selection = new vscode.Selection(0, 0, 0, 25);
    await vscode.commands.executeCommand('crow.sendSelection');
    await vscode.commands.executeCommand('crow.sendFile', vscode.Uri.file(file));
    await vscode.commands.executeCommand('crow.pickAgent', 'pair');
    await vscode.commands.executeCommand('crow.pickModel', 'coagent', 'fake-reviewer');
    view.dispose();
    const prefills = view.posted.flatMap((message) => (message.type === 'prefill' ? [message.text] : []));
    assert.match(prefills[0] ?? '', /In `selected\.ts:1-1`:\n```typescript\nexport const answer = 42;/);
    assert.match(prefills[1] ?? '', /About the file `selected\.ts`/);
    const agents = view.posted.filter((message) => message.type === 'agents').at(-1);
    assert.ok(agents && agents.type === 'agents');
    assert.equal(agents.agent, 'pair');
    assert.equal(agents.models.find((model) => model.role === 'coagent')?.current, 'fake-reviewer');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Show Trace opens the trace of the chat, Export writes it, and the version shows', async () => {
    server().enqueue('openai', { blocks: [{ type: 'text', text: 'Traced.' }] });
    await crow.controller().handle({ type: 'send', text: 'Something to trace' });
    const id = crow.controller().sessionId!;
    await vscode.commands.executeCommand('crow.chat.showTrace');
    await waitFor('the trace panel', () => vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((tab) => tab.input instanceof vscode.TabInputWebview));
    const out = vscode.Uri.file(join(root(), 'exported-session.json'));
    await vscode.commands.executeCommand('crow.exportSession', id, 'json', out);
    const exported = JSON.parse(readFileSync(out.fsPath, 'utf8')) as { meta: { id: string; title: string } };
    assert.equal(exported.meta.id, id);
    assert.equal(exported.meta.title, 'Something to trace');
    await vscode.commands.executeCommand('crow.openConfigFolder', 'project');
    assert.ok(existsSync(join(root(), '.crow', 'config.toml')));
    await vscode.commands.executeCommand('crow.showVersion');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The folder is shared with the other suites: a .crow/ left here would change what they test (the sandbox's blocked paths).
    rmSync(join(root(), '.crow'), { recursive: true, force: true });
  });

  test("an MCP server set in Crow's settings gives the agent its tools", async () => {
    const view = recorder(crow);
    const fixture = join(vscode.extensions.getExtension('crow-agent.crow-agent')!.extensionPath, 'test', 'fixtures', 'mcp-server.ts');
    const tsx = require.resolve('tsx/cjs', { paths: [vscode.extensions.getExtension('crow-agent.crow-agent')!.extensionPath] });
    const config = vscode.workspace.getConfiguration('crow');
    await config.update('mcpServers', { fixture: { command: process.execPath, args: ['--require', tsx, fixture], permission: 'read' } }, vscode.ConfigurationTarget.Workspace);
    try {
      server().enqueue(
        'openai',
        { blocks: [{ type: 'tool_call', name: 'mcp__fixture__echo', arguments: { text: 'from VS Code settings' } }] },
        { blocks: [{ type: 'text', text: 'Echoed.' }] },
      );
      await crow.controller().handle({ type: 'send', text: 'Echo through MCP' });
      const end = view.events().find((event) => event.type === 'tool_end');
      assert.ok(end && end.type === 'tool_end', JSON.stringify(view.events()));
      assert.equal(end.status, 'completed', end.output);
      assert.match(end.output, /fixture echo: from VS Code settings/);
    } finally {
      await config.update('mcpServers', undefined, vscode.ConfigurationTarget.Workspace);
      view.dispose();
    }
  });

  test('@crow answers in the native chat, through the models Crow registers', async () => {
    server().enqueue('openai', { blocks: [{ type: 'text', text: 'Hello from the participant.' }] });
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@crow say hello from the native chat' });
    // The participant runs a Crow session of its own: it is stored under the prompt's first line.
    const store = new (crow.engine().SessionStore)({ dataHome: crow.engine().dataHomeOf(process.env) });
    const session = await waitFor('the participant to run a Crow session', () =>
      store.list({ cwd: root() }).find((meta) => meta.title === 'say hello from the native chat'),
    );
    assert.equal(session.agentName, 'build');
    await waitFor('the participant to ask the model', () =>
      server().requests.some((recorded) => JSON.stringify(recorded.body.messages).includes('say hello from the native chat')),
    );
  });
});
