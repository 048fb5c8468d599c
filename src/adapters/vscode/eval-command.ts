/**
 * Crow: Run Evaluation: the agents picked against the shipped task suite on
 * the models the Crow settings choose, with a cancellable progress
 * notification, then the report in a webview. Results go to the extension's
 * storage (one folder per evaluation); the same data as `crow eval`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { t } from './l10n';
import type { Crow } from './crow';
import { loadEngine } from './crow';
import { workspaceRoot } from './workspace-root';

export interface EvalCommandOptions {
  agents?: string[];
  /** Task names or globs, comma-separated. */
  tasks?: string;
  repeat?: number;
}

const DEFAULT_AGENTS = ['build', 'build-verified', 'pair'];

/** Runs an evaluation; resolves to the report's folder, undefined when the person backed out of a picker. */
export async function runEvaluation(context: vscode.ExtensionContext, crow: Crow, options: EvalCommandOptions = {}): Promise<string | undefined> {
  const engine = loadEngine();
  const root = workspaceRoot() ?? tmpdir();
  const agents = options.agents ?? (await pickAgents(engine.agentNames(root, vscode.workspace.isTrusted)));
  if (!agents || agents.length === 0) return undefined;
  const tasks = engine.loadTasks(join(context.extensionPath, 'eval', 'tasks'), options.tasks);
  const env = await crow.keys.env();
  const configuration = engine.crowConfiguration();
  const settings = engine.settingsFor(root, configuration, env, false);
  const out = join(context.globalStorageUri.fsPath, 'eval', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(out, { recursive: true });
  const total = tasks.length * agents.length * (options.repeat ?? 1);
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: t`Crow eval: ${tasks.length} tasks \u00d7 ${agents.join(', ')}`, cancellable: true },
    async (progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      let passed = 0;
      return engine.runEval({
        tasks,
        agents,
        repeat: options.repeat ?? 1,
        concurrency: 2,
        env,
        dataHome: engine.dataHomeOf(env),
        overrides: {},
        settingsFor: (folder) => engine.settingsFor(folder, configuration, env, false),
        budget: { tokens: 300_000, wallMs: 600_000 },
        out,
        signal: controller.signal,
        onProgress: (event) => {
          if (event.kind !== 'finished') return;
          if (event.result.passed) passed += 1;
          progress.report({ increment: 100 / total, message: t`${event.done}/${event.total} runs, ${passed} passed \u00b7 ${event.result.task} (${event.result.agent})` });
        },
      });
    },
  );
  const report = { manifest: outcome.manifest, out };
  writeFileSync(join(out, 'report.md'), engine.markdownReport(outcome.results, agents, report), { mode: 0o600 });
  writeFileSync(join(out, 'report.html'), engine.htmlReport(outcome.results, agents, { ...report, script: engine.reportScript() }), { mode: 0o600 });
  showReport(outcome.results, agents, engine, `${settings.provider}/${settings.model}`, report);
  if (outcome.unfinished > 0) void vscode.window.showWarningMessage(outcome.unfinished === 1 ? t`Crow eval stopped: 1 run did not finish. The report shows the ${outcome.results.length} that did.` : t`Crow eval stopped: ${outcome.unfinished} runs did not finish. The report shows the ${outcome.results.length} that did.`);
  return out;
}

async function pickAgents(names: string[]): Promise<string[] | undefined> {
  const picked = await vscode.window.showQuickPick(
    names.map((name) => ({ label: name, picked: DEFAULT_AGENTS.includes(name) })),
    { title: t('Crow eval: the agents to compare on the task suite (each run calls your model)'), canPickMany: true },
  );
  return picked?.map((item) => item.label);
}

function showReport(
  results: Parameters<ReturnType<typeof loadEngine>['htmlReport']>[0],
  agents: string[],
  engine: ReturnType<typeof loadEngine>,
  model: string,
  report: Omit<Parameters<ReturnType<typeof loadEngine>['htmlReport']>[2], 'script'>,
): void {
  const panel = vscode.window.createWebviewPanel('crow.evalReport', t`Crow eval \u00b7 ${model}`, vscode.ViewColumn.Active, {
    enableScripts: true,
    localResourceRoots: [],
  });
  const nonce = randomBytes(16).toString('base64');
  // In the display language: the page's headings through t, its script's words from the bundle it carries.
  const l10n = vscode.l10n.bundle;
  panel.webview.html = engine.htmlReport(results, agents, { ...report, script: engine.reportScript(), nonce, t, ...(l10n !== undefined ? { l10n } : {}) });
}
