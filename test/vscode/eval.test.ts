// Runs inside a real VS Code (npm run test:vscode); not part of the Node suite.
// Crow: Run Evaluation against the fake LLM server playing the scripted solver:
// the runs, the report's numbers and the report's webview.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { readResultsFile } from '../../src/eval/eval-runner';
import { loadTasks } from '../../src/eval/eval-task';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { scriptedSolver } from '../../testkit/scripted-solver';
import { solverTasks, wrongFirstOnTraps } from '../support/eval-solver';

suite('Crow eval in VS Code', () => {
  let server: FakeLlmServer;
  const changed: [string, unknown][] = [];
  const target = vscode.ConfigurationTarget.Workspace;

  suiteSetup(async () => {
    server = await FakeLlmServer.start();
    const config = vscode.workspace.getConfiguration('crow');
    for (const [key, value] of Object.entries({ provider: 'anthropic', model: 'claude-eval', baseUrls: { anthropic: server.anthropicBaseUrl } })) {
      changed.push([key, config.inspect(key)?.workspaceValue]);
      await config.update(key, value, target);
    }
    await vscode.commands.executeCommand('crow.setApiKey', 'ANTHROPIC_API_KEY', 'sk-eval-not-a-real-key');
  });
  suiteTeardown(async () => {
    const config = vscode.workspace.getConfiguration('crow');
    for (const [key, value] of changed.reverse()) await config.update(key, value, target);
    await vscode.commands.executeCommand('crow.clearApiKey', 'ANTHROPIC_API_KEY');
    await server.close();
  });

  test('runs the picked agents on the tasks, writes the results and shows the report in a webview', async function () {
    this.timeout(120_000);
    const extension = vscode.extensions.getExtension('crow-agent.crow-agent')!;
    const tasks = loadTasks(join(extension.extensionPath, 'eval', 'tasks'), 'js-clamp,js-leap-year');
    server.respondWith('anthropic', scriptedSolver({ tasks: solverTasks(tasks), modeOf: wrongFirstOnTraps }));
    const out = await vscode.commands.executeCommand<string>('crow.runEval', { agents: ['build', 'build-verified'], tasks: 'js-clamp,js-leap-year' });
    assert.ok(out, 'the command returns where the results are');
    const { manifest, results } = readResultsFile(join(out, 'results.jsonl'));
    assert.ok(manifest, 'the results open with the manifest that says what was run');
    const passed = (task: string, agent: string) => results.find((result) => result.task === task && result.agent === agent)?.passed;
    assert.equal(results.length, 4);
    assert.equal(passed('js-clamp', 'build'), true);
    assert.equal(passed('js-leap-year', 'build'), false, 'the lone builder ships the trap fix');
    assert.equal(passed('js-leap-year', 'build-verified'), true, 'the verifier sends it back');
    assert.match(readFileSync(join(out, 'report.md'), 'utf8'), /\| build-verified \| 2\/2 \| 100%/);
    const reportTab = () => vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((candidate) => candidate.label.startsWith('Crow eval'));
    // The tab model follows the panel a moment later.
    for (let i = 0; i < 100 && !reportTab(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const tab = reportTab();
    assert.ok(tab, `the report opens in a webview; tabs: ${vscode.window.tabGroups.all.flatMap((group) => group.tabs).map((t) => t.label).join(', ')}`);
    assert.ok(tab.input instanceof vscode.TabInputWebview);
    await vscode.window.tabGroups.close(tab);
  });
});
