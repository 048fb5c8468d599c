// Runs inside a real VS Code (npm run test:vscode); not part of the Node suite.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Crow } from '../../src/adapters/vscode/crow';
import type { SessionNode } from '../../src/adapters/vscode/traces/traces-view';
import { dataHome } from '../../src/config/paths';
import type { SessionMeta } from '../../src/session/meta-file';
import type { SpanRecord } from '../../src/telemetry/span';
import { waitFor } from './support/wait-for';

function traceTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('crow.trace'));
}

suite('Crow traces: the Traces view and the trace panel', () => {
  const stamp = Date.now();
  const parentId = `traces-test-${process.pid}-${stamp}`;
  const childId = `${parentId}-sub`;
  const laterId = `${parentId}-later`;
  let sessions: string;
  let crow: Crow;

  /** Writes a stored session as SessionStore does: meta.json and trace.jsonl under the data home the extension uses. */
  function store(meta: Partial<SessionMeta> & Pick<SessionMeta, 'id' | 'title'>, spans: SpanRecord[]): void {
    const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const full: SessionMeta = { agentName: 'build', cwd: root, createdAt: stamp, updatedAt: stamp, models: {}, todos: [], internal: [], ...meta };
    fs.mkdirSync(path.join(sessions, meta.id), { recursive: true });
    fs.writeFileSync(path.join(sessions, meta.id, 'trace.jsonl'), spans.map((span) => `${JSON.stringify(span)}\n`).join(''));
    fs.writeFileSync(path.join(sessions, meta.id, 'meta.json'), JSON.stringify(full));
  }

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<Crow>('crow-agent.crow-agent');
    assert.ok(extension, 'the extension is installed under its publisher.name id');
    crow = await extension.activate();
    sessions = path.join(dataHome(process.env), 'sessions');
    const trace = 'a'.repeat(32);
    const prompt: SpanRecord = { traceId: trace, spanId: '1'.repeat(16), kind: 'prompt', name: 'prompt build', start: stamp, end: stamp + 900, status: 'ok', attributes: { 'crow.cost_usd': 0.25 } };
    const tool: SpanRecord = { traceId: trace, spanId: '2'.repeat(16), parentSpanId: prompt.spanId, kind: 'tool', name: 'execute_tool task', start: stamp + 10, end: stamp + 800, status: 'ok', attributes: { 'gen_ai.tool.call.id': 'call-task' } };
    store({ id: parentId, title: 'Fix the greeting', internal: [{ id: `${parentId}-builder`, role: 'primary', agentName: 'builder', createdAt: stamp, parentId, siblingIds: [] }] }, [prompt, tool]);
    store({ id: childId, title: 'Explore the repo', agentName: 'explorer', parent: { sessionId: `${parentId}-builder`, callId: 'call-task', agent: 'builder' } }, []);
  });

  suiteTeardown(async () => {
    for (const tab of traceTabs()) await vscode.window.tabGroups.close(tab);
    for (const id of [parentId, childId, laterId]) fs.rmSync(path.join(sessions, id), { recursive: true, force: true });
  });

  test('the Traces view lists a stored session of the workspace, its subagent session under it', async () => {
    await vscode.commands.executeCommand('crow.traces.focus');
    crow.traces.refresh();
    const roots = (await crow.traces.tree.getChildren()) as SessionNode[];
    const parent = roots.find((node) => node.meta.id === parentId);
    assert.ok(parent, `the view lists ${parentId}: ${roots.map((node) => node.meta.id).join(', ')}`);
    assert.equal(roots.some((node) => node.meta.id === childId), false, 'the subagent session is not at the top');
    const item = await crow.traces.tree.getTreeItem(parent);
    assert.equal(item.label, 'Fix the greeting');
    assert.match(String(item.description), /^build · /);
    assert.deepEqual(item.command?.command, 'crow.showTrace');
    assert.deepEqual(item.command?.arguments, [parentId]);

    const [child] = (await crow.traces.tree.getChildren(parent)) as SessionNode[];
    assert.equal(child?.meta.id, childId);
    assert.match(String((await crow.traces.tree.getTreeItem(child!)).description), /^subagent of builder · explorer/);
    const resolved = await crow.traces.tree.resolveTreeItem!(item, parent, new vscode.CancellationTokenSource().token);
    assert.match((resolved?.tooltip as vscode.MarkdownString).value, /Prompts: 1 · cost \$0\.2500/);
  });

  test('the view notices a session stored while it is open', async () => {
    const changed = new Promise<void>((resolve) => {
      const listener = crow.traces.tree.onDidChangeTreeData!(() => {
        listener.dispose();
        resolve();
      });
    });
    // Later than every session stored so far, also the chat suite's (which may have run for minutes after `stamp`).
    store({ id: laterId, title: 'A later session', updatedAt: Date.now() + 60_000 }, []);
    await Promise.race([changed, new Promise((_, reject) => setTimeout(() => reject(new Error('the view did not refresh on its own after a new meta.json')), 10_000))]);
    const roots = (await crow.traces.tree.getChildren()) as SessionNode[];
    assert.equal(roots[0]?.meta.id, laterId, 'newest first');
  });

  test('crow.showTrace opens one trace panel per session, and brings it back for a tool call', async () => {
    await vscode.commands.executeCommand('crow.showTrace', parentId);
    const tab = await waitFor('the trace panel', () => traceTabs().find((t) => t.label === 'Trace: Fix the greeting'));
    assert.ok(tab.isActive);
    await vscode.commands.executeCommand('crow.showTrace', parentId, { callId: 'call-task' });
    assert.equal(traceTabs().filter((t) => t.label === 'Trace: Fix the greeting').length, 1, 'the open panel is reused');
  });

  test('a subagent session without spans of its own opens its parent\'s trace', async () => {
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await waitFor('the panel to close', () => traceTabs().length === 0 || undefined);
    await crow.traces.showTrace(childId);
    await waitFor('the parent\'s trace panel', () => traceTabs().find((t) => t.label === 'Trace: Fix the greeting'));
  });

  test('a trace panel VS Code kept across a restart comes back as its session\'s panel; one of a deleted session closes', async () => {
    for (const tab of traceTabs()) await vscode.window.tabGroups.close(tab);
    const kept = vscode.window.createWebviewPanel('crow.trace', 'kept', vscode.ViewColumn.Active, {});
    await crow.traces.restore(kept, { sessionId: parentId, title: 'Fix the greeting' });
    assert.match(kept.webview.html, /viewer\.js/);
    await waitFor('the restored panel', () => traceTabs().find((t) => t.label === 'Trace: Fix the greeting'));
    await crow.traces.showTrace(parentId);
    assert.equal(traceTabs().length, 1, 'Show Trace reuses the restored panel');
    const stale = vscode.window.createWebviewPanel('crow.trace', 'stale', vscode.ViewColumn.Active, {});
    await crow.traces.restore(stale, { sessionId: 'deleted-since' });
    await waitFor('the stale panel to close', () => traceTabs().every((t) => t.label !== 'stale') || undefined);
  });

  test('an unknown session is an error message, not a panel', async () => {
    const before = traceTabs().length;
    await crow.traces.showTrace('no-such-session');
    assert.equal(traceTabs().length, before);
  });
});
