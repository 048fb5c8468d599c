import * as vscode from 'vscode';
import { configHome, dataHome } from '../../config/paths';
import { CHAT_VIEW_ID, ChatViewProvider } from './chat/chat-view';
import { BEFORE_SCHEME, BeforeTexts, viewActions } from './chat/view-actions';
import { PROPOSED_SCHEME, ProposedFiles } from './chat/change-editor';
import { registerCommands } from './commands';
import { EditorHunks } from './chat/editor-hunks';
import { registerHunkLens } from './hunk-lens';
import { type Crow, engineIfLoaded, loadEngine as engine, whenEngineLoads } from './crow';
import { CROW_VENDOR, keptModels, registerLanguageModels } from './language-models';
import { registerParticipant } from './participant';
import { KeyStore } from './secrets';
import { loginKeysFor } from './key-sources';
import { lastSessionRecord } from './last-session';
import { watchOutsideWorkspace } from './outside-watch';
import { registerTraces } from './traces/register-traces';
import type { VscodeWorkspace } from './vscode-workspace';
import { workspaceRoot } from './workspace-root';
import { t, useL10nBundle } from './l10n';

/**
 * Extension entry point (activated once VS Code has started). Activation
 * registers the views, commands, the `@crow` participant and the language
 * model provider, and lists the models once (see warmUpModels); the engine
 * loads when the chat opens, a prompt runs, or a workspace lists its models
 * for the first time.
 */
export function activate(context: vscode.ExtensionContext): Crow {
  useL10nBundle(vscode.l10n.bundle);
  const log = vscode.window.createOutputChannel('Crow', { log: true });
  const keys = new KeyStore(context.secrets, context.globalState, (env) => loginKeysFor(env, (problem) => log.warn(problem)));
  const workspaces = new Map<string, VscodeWorkspace>();
  const before = new BeforeTexts();
  const proposed = new ProposedFiles();
  const trusted = (): boolean => vscode.workspace.isTrusted;
  // The session the view showed last, per workspace: a window reloaded mid-prompt reopens it (see ChatController).
  const lastSession = lastSessionRecord(context);
  const host = (root: string) => engine().chatHost(root, () => keys.env(), workspaces, (message) => log.info(message), trusted, lastSession, context.secrets);
  const rootOrThrow = (): string => {
    const root = workspaceRoot();
    if (root === undefined) throw new Error(t('Open a folder first: Crow works on the files of a workspace folder.'));
    return root;
  };

  const traces = registerTraces(context, {
    dataHome: () => dataHome(process.env),
    workspaceRoot,
    // Only the engine runs sessions: before it loads, none is running here.
    liveTrace: (sessionId) => engineIfLoaded()?.liveSessions.recorder(sessionId),
  });
  const chat = new ChatViewProvider(context.extensionUri, (post) => {
    const root = rootOrThrow();
    const actions = viewActions({
      root,
      before,
      proposed,
      showTrace: (sessionId, callId) => traces.showTrace(sessionId, callId !== undefined ? { callId } : {}),
      sessionsChanged: () => traces.refresh(),
      showLog: () => log.show(true),
      keys,
    });
    return new (engine().ChatController)(host(root), post, actions);
  });

  const languageModels = registerLanguageModels({
    settings: () => engine().settingsFor(workspaceRoot() ?? process.cwd(), engine().crowConfiguration(), process.env, trusted()),
    env: () => keys.env(),
    cache: {
      read: () => keptModels(context.workspaceState.get(MODELS_KEY)),
      write: (models) => void context.workspaceState.update(MODELS_KEY, models),
    },
    engine: { loaded: () => engineIfLoaded() !== undefined, onLoad: whenEngineLoads },
  });
  const crow: Crow = { keys, chat, traces, engine, controller: () => chat.controller, languageModels };
  stopEverything = async () => {
    // The prompt learns it is interrupted before its commands are killed: a command's end must not read as a result to go on from.
    const disposed = chat.dispose();
    engineIfLoaded()?.closeAllPools();
    await disposed;
  };

  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chat),
    vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, before),
    vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, proposed, { isCaseSensitive: true }),
    keys,
    log,
    languageModels,
    registerParticipant({
      root: workspaceRoot,
      startSession: async (ask, agent) => engine().ChatSession.start(host(rootOrThrow()), ask, agent),
      agentNames: async () => {
        const root = workspaceRoot();
        return root === undefined ? [] : engine().agentNames(root, trusted());
      },
      iconPath: vscode.Uri.joinPath(context.extensionUri, 'media', 'crow.svg'),
    }),
    keys.onDidChange(() => languageModels.refresh()),
    // A folder trusted now may add providers and models of its own.
    vscode.workspace.onDidGrantWorkspaceTrust(() => languageModels.refresh()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('crow')) languageModels.refresh();
    }),
    watchConfigFiles(() => languageModels.refresh()),
    ...registerCommands(context, crow),
    ...editorHunks(chat),
    { dispose: () => void chat.dispose() },
    { dispose: () => workspaces.forEach((workspace) => workspace.dispose()) },
  );
  // VS Code's chat looks the selected model up in this extension host when a request for @crow arrives; until the
  // models were listed here once, the very first request fails with "Language model unavailable". List them now.
  void warmUpModels(log);
  return crow;
}

/** Lists Crow's models once, so the chat finds them; says in the log when they are known (the UI checks wait for that line). */
async function warmUpModels(log: vscode.LogOutputChannel): Promise<void> {
  try {
    const models = await vscode.lm.selectChatModels({ vendor: CROW_VENDOR });
    log.info(`${MODELS_READY}: ${models.map((model) => model.id).join(', ') || 'none'}`);
  } catch (err) {
    log.warn(`Crow's language models could not be listed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Keep and Undo on the last prompt's hunks in the editor, following what the chat view is told (see editor-hunks.ts). */
function editorHunks(chat: ChatViewProvider): vscode.Disposable[] {
  const hunks = new EditorHunks({
    hunks: (path) => chat.controller.promptHunks(path),
    undo: (path, id) => chat.controller.handle({ type: 'undo_hunk', path, hunk: id }),
    keep: (path, id) => chat.controller.handle({ type: 'keep_hunk', path, hunk: id }),
  });
  return [chat.onDidPost((message) => hunks.observe(message)), ...registerHunkLens(hunks, workspaceRoot)];
}

/** Where the workspace keeps the model list last offered (see LanguageModelDeps.cache). */
const MODELS_KEY = 'crow.languageModels';

/** Starts the log line warmUpModels writes once the models are known. */
export const MODELS_READY = 'language models ready';

/** config.toml (the user's and the project's) can add providers and models: the model list follows it. */
function watchConfigFiles(changed: () => void): vscode.Disposable {
  const project = vscode.workspace.createFileSystemWatcher('**/.crow/config.toml');
  project.onDidChange(changed);
  project.onDidCreate(changed);
  project.onDidDelete(changed);
  // The user's config folder is outside the workspace, where VS Code's watcher alone can miss a change.
  const user = watchOutsideWorkspace(configHome(process.env), 'config.toml', changed, (name) => name === 'config.toml');
  return vscode.Disposable.from(project, user);
}

/** What deactivate stops; set by activate. */
let stopEverything: (() => Promise<void>) | undefined;

/**
 * The window is closing or reloading: the running prompt is cancelled (its
 * session keeps what was done, and shows as interrupted when reopened) and
 * every Crow terminal is closed with the command in it, so nothing the
 * agents started runs on unseen.
 */
export async function deactivate(): Promise<void> {
  await stopEverything?.();
}
