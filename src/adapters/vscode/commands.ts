import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { ConfinedFolder } from '../../tools/confined-folder';
import { join, relative } from 'node:path';
import * as vscode from 'vscode';
import { configHome, dataHome, projectConfigDir } from '../../config/paths';
import type { SessionStore } from '../../session/session-store';
import type { Crow } from './crow';
import { type EvalCommandOptions, runEvaluation } from './eval-command';
import { workspaceRoot } from './workspace-root';
import { signInToMcpServer } from './mcp-sign-in';
import { keyVariables } from './key-variables';
import { approvalOfDocument } from './chat/change-editor';
import { t } from './l10n';

/** Every palette command of the extension except those of the Traces view (registered there). */
export function registerCommands(context: vscode.ExtensionContext, crow: Crow): vscode.Disposable[] {
  const version = String(context.extension.packageJSON.version ?? 'unknown');
  const command = (id: string, run: (...args: unknown[]) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await run(...args);
      } catch (err) {
        void vscode.window.showErrorMessage(t`Crow: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    });
  return [
    // Not awaited: the message's promise settles only when someone closes it.
    command('crow.showVersion', () => void vscode.window.showInformationMessage(t`Crow Agent ${version}`)),
    command('crow.newSession', async () => {
      await vscode.commands.executeCommand('crow.chat.focus');
      await crow.controller().newSession();
    }),
    command('crow.sendSelection', () => sendSelection(crow)),
    command('crow.sendFile', (uri) => sendFile(crow, uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri)),
    command('crow.pickAgent', (name) => pickAgent(crow, typeof name === 'string' ? name : undefined)),
    command('crow.pickModel', (role, model) => pickModel(crow, asString(role), asString(model))),
    command('crow.setApiKey', (variable, value) => setApiKey(crow, asString(variable), asString(value))),
    command('crow.clearApiKey', (variable) => clearApiKey(crow, asString(variable))),
    command('crow.cancel', () => crow.controller().cancel()),
    command('crow.allowWaiting', () => answerWaiting(crow, 'allow_once')),
    command('crow.denyWaiting', () => answerWaiting(crow, 'reject_once')),
    command('crow.allowProposedChange', (uri) => allowProposedChange(crow, uri)),
    command('crow.chat.showTrace', () => {
      const id = crow.controller().sessionId;
      return id !== undefined ? crow.traces.showTrace(id) : vscode.commands.executeCommand('crow.showTrace');
    }),
    command('crow.undoLastRun', (options) => undoLastRun(crow, (options as { confirmed?: unknown } | undefined)?.confirmed === true)),
    command('crow.exportSession', (id, format, to) => exportSession(crow, asString(id), asString(format), to instanceof vscode.Uri ? to : undefined)),
    command('crow.openConfigFolder', (which) => openConfigFolder(asString(which))),
    command('crow.runEval', (options) => runEvaluation(context, crow, (options ?? {}) as EvalCommandOptions)),
    command('crow.signInMcpServer', (server) => signInToMcpServer(crow, context.secrets, asString(server))),
  ];
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The selection (or the current line), with its place in the workspace, into the chat's input. */
async function sendSelection(crow: Crow): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) throw new Error(t('No editor is active: select some code first.'));
  const { document, selection } = editor;
  const range = selection.isEmpty ? document.lineAt(selection.active.line).range : selection;
  const text = document.getText(range);
  const where = `${displayPath(document.uri)}:${range.start.line + 1}-${range.end.line + 1}`;
  const fence = '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((run) => run.length + 1)));
  await crow.chat.prefill(`In \`${where}\`:\n${fence}${document.languageId}\n${text}\n${fence}\n\n`);
}

async function sendFile(crow: Crow, uri: vscode.Uri | undefined): Promise<void> {
  if (!uri) throw new Error(t('No file to send: run this on a file in the Explorer or in an open editor.'));
  await crow.chat.prefill(`About the file \`${displayPath(uri)}\`: `);
}

function displayPath(uri: vscode.Uri): string {
  const root = workspaceRoot();
  return root !== undefined && uri.scheme === 'file' ? relative(root, uri.fsPath).split('\\').join('/') : uri.fsPath;
}

async function pickAgent(crow: Crow, name?: string): Promise<void> {
  const controller = crow.controller();
  const { agents, current } = await controller.agentChoices();
  const chosen =
    name ??
    (
      await vscode.window.showQuickPick(
        agents.map((agent) => ({ label: agent.name, description: agent.name === current ? t('current') : '', detail: agent.description })),
        { title: t('Crow: pick the agent (autonomy level) of this session'), matchOnDetail: true },
      )
    )?.label;
  if (chosen !== undefined) await controller.pick({ agent: chosen });
}

/** Picks the model of a role ("primary" or "coagent"); asks for whatever is not given. */
async function pickModel(crow: Crow, roleName?: string, modelName?: string): Promise<void> {
  const controller = crow.controller();
  const roles = await controller.modelChoicesNow();
  if (roleName !== undefined && modelName !== undefined) {
    const offered = roles.find((choice) => choice.role === roleName);
    if (!offered) throw new Error(t`This agent has no "${roleName}" role; its roles: ${roles.map((choice) => choice.role).join(', ')}.`);
    return controller.pick({ role: offered.role, model: modelName });
  }
  const role =
    roles.length === 1
      ? roles[0]
      : (await vscode.window.showQuickPick(roles.map((choice) => ({ label: choice.label, description: choice.current, choice })), { title: t('Crow: which role?') }))?.choice;
  if (!role) return;
  const other = t('Another model…');
  const model = await vscode.window.showQuickPick(
    [...role.options.map((option) => ({ label: option, description: option === role.current ? t('current') : '' })), { label: other, description: t('a model the configuration does not list') }],
    { title: t`Crow: ${role.label.toLowerCase()} of this session` },
  );
  const name =
    model?.label === other
      ? await vscode.window.showInputBox({
          title: t`Crow: ${role.label.toLowerCase()} of this session`,
          prompt: t("The model's name as its provider knows it"),
          validateInput: (input) => (/^\S+$/.test(input.trim()) ? undefined : t('One word, e.g. gpt-5.4 or claude-sonnet-4-6.')),
        })
      : model?.label;
  if (name) await controller.pick({ role: role.role, model: name.trim() });
}

/** Allows or denies the approval that has waited longest, from the keyboard wherever the focus is. */
function answerWaiting(crow: Crow, decision: 'allow_once' | 'reject_once'): void {
  if (!crow.controller().answerWaiting(decision)) void vscode.window.showInformationMessage(t('Crow: no approval is waiting.'));
}

/** Asks for a key (never echoed) and keeps it in SecretStorage under the provider's variable name. */
async function setApiKey(crow: Crow, variable?: string, value?: string): Promise<void> {
  const name = variable ?? (await pickVariable(crow, t('Set the API key of which provider?')));
  if (name === undefined) return;
  const key =
    value ??
    (await vscode.window.showInputBox({
      title: t`Crow: API key for ${name}`,
      prompt: t("Kept in VS Code's secret storage only; never written to settings, logs or traces."),
      password: true,
      ignoreFocusOut: true,
      validateInput: (input) => (input.trim() === '' ? t('Paste the key, or press Escape.') : undefined),
    }));
  if (key === undefined) return;
  await crow.keys.set(name, key.trim());
  void vscode.window.showInformationMessage(t`Crow: the key for ${name} is stored.`);
}

async function clearApiKey(crow: Crow, variable?: string): Promise<void> {
  const stored = crow.keys.names();
  if (variable === undefined && stored.length === 0) {
    void vscode.window.showInformationMessage(t("Crow has no stored API keys (keys in the environment are not Crow's to clear)."));
    return;
  }
  const name = variable ?? (await vscode.window.showQuickPick(stored, { title: t('Crow: clear which stored key?') }));
  if (name === undefined) return;
  await crow.keys.clear(name);
  void vscode.window.showInformationMessage(t`Crow: the stored key for ${name} is cleared.`);
}

async function pickVariable(crow: Crow, title: string): Promise<string | undefined> {
  const root = workspaceRoot() ?? process.cwd();
  const variables = keyVariables(crow.engine().resolveSettings(root, {}, process.env));
  const stored = new Set(crow.keys.names());
  const items = variables.map(({ variable, providers }) => ({
    label: variable,
    description: providers.join(', '),
    detail: stored.has(variable) ? t('stored') : process.env[variable] ? t('set in the environment') : t('not set'),
  }));
  const another = t('Another variable…');
  const picked = await vscode.window.showQuickPick([...items, { label: another, description: '', detail: '' }], { title });
  if (!picked) return undefined;
  if (picked.label !== another) return picked.label;
  return vscode.window.showInputBox({
    title: t('Crow: the environment variable the provider reads its key from'),
    validateInput: (input) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(input) ? undefined : t('Letters, digits and "_", not starting with a digit.')),
  });
}

/** Puts back what the last prompt changed, after showing what will change (unless `confirmed` already). */
async function undoLastRun(crow: Crow, confirmed: boolean): Promise<void> {
  const root = workspaceRoot();
  if (root === undefined) throw new Error(t('Open a folder first.'));
  const engine = crow.engine();
  const data = dataHome(process.env);
  const log = new engine.UndoLog({ workspace: root, dataHome: data });
  const entry = await log.latest(crow.controller().sessionId);
  if (!entry) {
    void vscode.window.showInformationMessage(t('Crow: nothing to undo here; no prompt has recorded a snapshot of this folder.'));
    return;
  }
  const snapshots = new engine.GitSnapshotManager({ workspace: root, dataHome: data, env: process.env });
  const signal = new AbortController().signal;
  const plan = await engine.planUndo(snapshots, entry, signal, log);
  const gaps = plan.gaps.length > 0 ? `\n\n${t`Cannot be undone: ${plan.gaps.join('; ')}.`}` : '';
  if (engine.nothingToUndo(plan)) {
    void vscode.window.showInformationMessage(`${t('Crow: nothing to undo; the files the last prompt changed are as they were before it.')}${gaps}`);
    return;
  }
  // What the restore will do, said before it is done (not "deleted" for a file it is about to delete).
  const files = plan.changes.map((change) => `${engine.PLANNED[change.status]}  ${change.path}`);
  const index = plan.userIndex ? [t('the git index (staged changes) goes back too')] : [];
  const detail = `${[...files, ...index].join('\n')}\n\n${t('Only what the prompt changed is put back; your own edits to other files stay.')}${gaps}`;
  const prompt = entry.prompt.split('\n', 1)[0] ?? '';
  const what = plan.changes.length > 0 ? engine.countPlanned(plan.changes) : t('the git index');
  const restore = t('Restore');
  const answer = confirmed ? restore : await vscode.window.showWarningMessage(t`Undo "${prompt}"? ${what}`, { modal: true, detail }, restore);
  if (answer !== restore) return;
  try {
    const applied = await plan.apply(signal);
    void vscode.window.showInformationMessage(plan.userIndex ? t`Crow: restored ${engine.countFiles(applied)} and the git index.` : t`Crow: restored ${engine.countFiles(applied)}.`);
  } catch (err) {
    if (!(err instanceof engine.RestoreError)) throw err;
    throw new Error(t`${err.message} (${err.applied.length} files were restored before it stopped)`);
  }
}

/** Exports a session as markdown or JSON; asks for the session, format and place unless given. */
async function exportSession(crow: Crow, id?: string, formatName?: string, to?: vscode.Uri): Promise<void> {
  const engine = crow.engine();
  const data = dataHome(process.env);
  const store = new engine.SessionStore({ dataHome: data });
  const root = workspaceRoot();
  const sessionId = id ?? crow.controller().sessionId ?? (await pickStored(store, root));
  if (sessionId === undefined) return;
  const formats = [
    { label: 'Markdown', detail: t('A folder with session.md and one transcript per internal agent, with [[wikilinks]]'), format: 'markdown' as const },
    { label: 'JSON', detail: t('One file with everything stored: meta, histories and spans'), format: 'json' as const },
  ];
  const format =
    formatName !== undefined
      ? formats.find((choice) => choice.format === formatName)
      : await vscode.window.showQuickPick(formats, { title: t('Crow: export the session as') });
  if (!format) {
    if (formatName !== undefined) throw new Error(t`Unknown export format "${formatName}": use markdown or json.`);
    return;
  }
  const redactor = new engine.Redactor(await crow.keys.env());
  const where = to ?? await vscode.window.showSaveDialog({
    title: t('Crow: export the session'),
    defaultUri: vscode.Uri.file(join(root ?? data, format.format === 'json' ? `crow-session-${sessionId}.json` : `crow-session-${sessionId}`)),
    ...(format.format === 'json' ? { filters: { JSON: ['json'] } } : {}),
  });
  if (!where) return;
  if (format.format === 'json') {
    await vscode.workspace.fs.writeFile(where, new TextEncoder().encode(engine.exportJson(store, sessionId, redactor)));
    await vscode.window.showTextDocument(where);
    return;
  }
  mkdirSync(where.fsPath, { recursive: true });
  const folder = await engine.exportMarkdown(store, sessionId, where.fsPath, redactor);
  await vscode.window.showTextDocument(vscode.Uri.file(join(folder, 'session.md')));
}

async function pickStored(store: SessionStore, root: string | undefined): Promise<string | undefined> {
  const sessions = store.list(root !== undefined ? { cwd: root } : {});
  if (sessions.length === 0) throw new Error(t('No stored sessions to export: send a prompt first.'));
  const picked = await vscode.window.showQuickPick(
    sessions.map((meta) => ({ label: meta.title || t('(untitled)'), description: meta.agentName, id: meta.id })),
    { title: t('Crow: export which session?') },
  );
  return picked?.id;
}

/** A new config.toml says where to start; every setting is documented in the README. */
const STARTER_CONFIG = `# Crow Agent configuration (see the README, "Configuration").
# VS Code settings (crow.*) take precedence over this file in the editor.
#
# provider = "anthropic"          # or "openai", or a [providers.NAME] below
# model = "claude-sonnet-4-5"
# default_agent = "build"
#
# [permissions]
# write = "ask"                   # allow | ask | deny
# execute = "ask"
# allow_commands = ["npm test"]
`;

/** Opens config.toml of the user or of the project, writing a commented starter file when there is none. */
async function openConfigFolder(which?: string): Promise<void> {
  const root = workspaceRoot();
  const choices = [
    { label: t('User configuration'), detail: configHome(process.env), folder: configHome(process.env), which: 'user' },
    ...(root !== undefined ? [{ label: t('Project configuration (.crow)'), detail: projectConfigDir(root), folder: projectConfigDir(root), which: 'project' }] : []),
  ];
  const named = which !== undefined ? choices.find((choice) => choice.which === which) : undefined;
  if (which !== undefined && !named) throw new Error(t`No "${which}" configuration here: use ${choices.map((choice) => choice.which).join(' or ')}.`);
  const picked = named ?? (choices.length === 1 ? choices[0] : await vscode.window.showQuickPick(choices, { title: t('Crow: open which configuration folder?') }));
  if (!picked) return;
  const config = join(picked.folder, 'config.toml');
  if (picked.which === 'project' && root !== undefined) {
    // The project's folder may hold links planted to lead elsewhere: the starter file is written only inside it.
    const project = new ConfinedFolder(root, 'inside');
    if ((await project.kind(config)) === 'absent') await project.writeFile(config, STARTER_CONFIG);
  } else {
    mkdirSync(picked.folder, { recursive: true });
    if (!existsSync(config)) writeFileSync(config, STARTER_CONFIG);
  }
  await vscode.window.showTextDocument(vscode.Uri.file(config));
}

/** "Allow with my changes" in a proposed change's diff editor: the approval its document belongs to (the active editor's, from the palette). */
async function allowProposedChange(crow: Crow, uri: unknown): Promise<void> {
  const id = approvalOfDocument(uri) ?? approvalOfDocument(vscode.window.activeTextEditor?.document.uri);
  if (id === undefined) throw new Error(t('Open a change Crow proposes first (Edit… on its approval in the chat).'));
  await crow.controller().handle({ type: 'approve_change', id });
}
