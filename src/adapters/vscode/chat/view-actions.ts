import { isAbsolute, relative, resolve } from 'node:path';
import { applyPatch, parsePatch, reversePatch } from 'diff';
import * as vscode from 'vscode';
import { t } from '../l10n';
import { openExactly } from '../open-external';
import type { KeyStore } from '../secrets';
import type { ProposedChange, ViewActions } from './chat-actions';
import { openChangeEditor, type ProposedFiles } from './change-editor';
import { providerSettings, type ProviderChoice } from './provider-setup';

/** URI scheme of the read-only "before" side of a tool call's diff. */
export const BEFORE_SCHEME = 'crow-before';

/**
 * Holds both sides of opened diffs: the change reversed on the file as it is
 * now gives the "before", the change applied to that the "after", so a tab
 * keeps showing exactly its one tool call's change whatever happens to the
 * file later.
 */
export class BeforeTexts implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  put(uri: vscode.Uri, text: string): void {
    // Kept for the window's lifetime, but only the latest 50: each is a whole file.
    this.texts.set(uri.toString(), text);
    if (this.texts.size > 50) this.texts.delete(this.texts.keys().next().value!);
  }
}

export interface ViewActionDeps {
  root: string;
  before: BeforeTexts;
  /** The editable proposed sides of approvals' changes. */
  proposed: ProposedFiles;
  showTrace(sessionId: string, callId?: string): Promise<void>;
  sessionsChanged(): void;
  /** Shows Crow's output channel. */
  showLog(): void;
  keys: KeyStore;
}

export function viewActions(deps: ViewActionDeps): ViewActions {
  return {
    openDiff: (sessionId, callId, unified) => openDiff(deps, sessionId, callId, unified),
    openFile: (path, line) => openFile(deps.root, path, line),
    previewChange: (id, unified) => previewChange(deps, id, unified),
    proposedChange: (unified) => proposedChange(deps.root, unified),
    editChange: (id, change, edits) => openChangeEditor(deps.proposed, id, change, nowSide(deps, id, change.path, change.current), edits),
    openSettings: async (setting) => void (await vscode.commands.executeCommand('workbench.action.openSettings', setting)),
    signInMcp: async (server) => void (await vscode.commands.executeCommand('crow.signInMcpServer', server)),
    showLog: deps.showLog,
    showTrace: deps.showTrace,
    sessionsChanged: deps.sessionsChanged,
    storeKey: (variable, key) => deps.keys.set(variable, key),
    useProvider,
    useRoleProvider: async (role, provider) => {
      const config = vscode.workspace.getConfiguration('crow');
      await write(config, role === 'coagent' ? 'reviewer.provider' : 'primary.provider', provider);
    },
    copyText: async (text) => {
      await vscode.env.clipboard.writeText(text);
      void vscode.window.setStatusBarMessage(t('Crow: code copied'), 2000);
    },
    insertAtCursor,
    // VS Code asks first about a domain it does not trust.
    openPage: (url) => openExactly(url),
    pickFileForCode,
    confirm: async (question, detail, action) => (await vscode.window.showWarningMessage(question, { modal: true, detail }, action)) === action,
  };
}

/** Which workspace file a code block without a named file is for: the open editors first, then the workspace's files. */
async function pickFileForCode(): Promise<string | undefined> {
  const relative = (uri: vscode.Uri): string | undefined => (vscode.workspace.getWorkspaceFolder(uri) ? vscode.workspace.asRelativePath(uri, false) : undefined);
  const open = vscode.window.visibleTextEditors.flatMap((editor) => (editor.document.uri.scheme === 'file' ? [relative(editor.document.uri)] : [])).filter((path): path is string => path !== undefined);
  const files = (await vscode.workspace.findFiles('**/*', '**/{node_modules,.git}/**', 2000)).flatMap((uri) => relative(uri) ?? []);
  const items = [...new Set([...open, ...files])].map((label, index) => ({ label, ...(index < open.length ? { description: t('open') } : {}) }));
  const picked = await vscode.window.showQuickPick(items, { title: t('Apply the code block to which file?'), placeHolder: t('The file is replaced by the block, after you approve the change'), matchOnDescription: true });
  return picked?.label;
}

/** A code block of an answer, typed in where the person's cursor is (an ordinary edit: Undo takes it back). */
async function insertAtCursor(text: string): Promise<void> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!editor) throw new Error(t('Open a file and put the cursor where the code goes, then press Insert again.'));
  const done = await editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, text);
  });
  if (!done) throw new Error(t`Could not insert into ${vscode.workspace.asRelativePath(editor.document.uri)}: is it read-only?`);
  await vscode.window.showTextDocument(editor.document, editor.viewColumn);
}

/**
 * Writes the provider set-up's choice into Crow's settings, each where it
 * is set now (a workspace's own setting would otherwise go on winning),
 * else in the user's settings.
 */
async function useProvider(choice: ProviderChoice): Promise<void> {
  const config = vscode.workspace.getConfiguration('crow');
  const changes = providerSettings(choice, { provider: config.get<string>('provider') ?? '', baseUrls: config.get<Record<string, string>>('baseUrls') ?? {} });
  for (const [key, value] of Object.entries(changes)) await write(config, key, value);
}

async function write(config: vscode.WorkspaceConfiguration, key: string, value: unknown): Promise<void> {
  const set = config.inspect(key);
  const target =
    set?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder
    : set?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global;
  await config.update(key, value, target);
}

/**
 * A change not made yet, in VS Code's diff editor: the file as it is now
 * (unsaved edits included) against it with the change applied, both
 * read-only, before the person decides.
 */
async function previewChange(deps: ViewActionDeps, id: string, unified: string): Promise<void> {
  const { path, current, proposed } = await proposedChange(deps.root, unified);
  const right = vscode.Uri.from({ scheme: BEFORE_SCHEME, path: `/${path}`, query: `proposed/${id}` });
  deps.before.put(right, proposed);
  await vscode.commands.executeCommand('vscode.diff', nowSide(deps, id, path, current), right, `${path} (Crow's proposed change)`);
}

/** The read-only "now" side of an approval's change. */
function nowSide(deps: ViewActionDeps, id: string, path: string, current: string | undefined): vscode.Uri {
  const left = vscode.Uri.from({ scheme: BEFORE_SCHEME, path: `/${path}`, query: `now/${id}` });
  deps.before.put(left, current ?? '');
  return left;
}

/** The file an approval's change is for, as the editor holds it now (unsaved edits included), and its text with the change applied. */
async function proposedChange(root: string, unified: string): Promise<ProposedChange> {
  const [patch] = parsePatch(unified);
  if (!patch) throw new Error(t('There is no text change to preview for this approval.'));
  const created = patch.oldFileName === '/dev/null';
  const path = (created ? patch.newFileName : patch.oldFileName).replace(/^[ab]\//, '');
  const file = confined(root, path);
  const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === file.toString());
  let current = open?.getText() ?? '';
  if (!open && !created) current = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
  const proposed = applyPatch(current, patch);
  if (proposed === false) throw new Error(`${path} changed since the agent asked, so its change no longer applies; deny it and let the agent read the file again.`);
  return { path, current: created ? undefined : current, proposed };
}

async function openDiff(deps: ViewActionDeps, sessionId: string, callId: string, unified: string): Promise<void> {
  const [patch] = parsePatch(unified);
  if (!patch) throw new Error(t('This tool call changed no text file; open the trace to see what it did.'));
  const created = patch.oldFileName === '/dev/null';
  const path = (patch.newFileName === '/dev/null' ? patch.oldFileName : patch.newFileName).replace(/^[ab]\//, '');
  const file = confined(deps.root, path);
  let current = '';
  try {
    current = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
  } catch {
    // A deleted file: the after side is empty.
  }
  const before = created ? '' : applyPatch(current, reversePatch(patch));
  if (before === false) {
    throw new Error(`${path} changed again since this call, so its change cannot be shown against the file; open the trace to see the diff.`);
  }
  // Both sides are this call's: a later edit of the file (this session's or another's) must not change what an open tab shows.
  const after = applyPatch(before, patch);
  const left = vscode.Uri.from({ scheme: BEFORE_SCHEME, path: `/${path}`, query: `${sessionId}/${callId}/before` });
  const right = vscode.Uri.from({ scheme: BEFORE_SCHEME, path: `/${path}`, query: `${sessionId}/${callId}/after` });
  deps.before.put(left, before);
  deps.before.put(right, after === false ? current : after);
  await vscode.commands.executeCommand('vscode.diff', left, right, `${path} (Crow's change, ${callId.slice(0, 8)})`);
}

async function openFile(root: string, path: string, line?: number): Promise<void> {
  const document = await vscode.workspace.openTextDocument(confined(root, path));
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position), preview: true });
}

/** A workspace path as a file URI; paths leading outside the workspace are refused (the webview is not trusted with them). */
function confined(root: string, path: string): vscode.Uri {
  const absolute = resolve(root, path);
  const inside = relative(root, absolute);
  if (inside.startsWith('..') || isAbsolute(inside)) throw new Error(`${path} is outside the workspace; Crow only opens files inside it.`);
  return vscode.Uri.file(absolute);
}
