/**
 * The trace side of the extension: the Traces view (`crow.traces`), one
 * trace panel per session, and the commands `crow.showTrace` and
 * `crow.traces.refresh`. extension.ts calls registerTraces once and keeps
 * the TraceService for the chat ("Show trace", tool cards) and for
 * refreshing after each prompt.
 */
import * as vscode from 'vscode';
import { t } from '../l10n';
import { SessionStore } from '../../../session/session-store';
import type { LiveTrace } from './trace-feed';
import { TRACE_PANEL_TYPE, TracePanel } from './trace-panel';
import { ago, TracesView, type SessionNode } from './traces-view';

export type { LiveTrace } from './trace-feed';

export interface TraceDeps {
  /** Crow's data folder, sessions under `<dataHome>/sessions/` (dataHome(process.env) unless configured otherwise). */
  dataHome(): string;
  /** The folder whose sessions the view lists; undefined (no folder open) lists every session. */
  workspaceRoot(): string | undefined;
  /** The recorder of a session running in this extension host (ACPSession.trace), else undefined. */
  liveTrace(sessionId: string): LiveTrace | undefined;
}

export interface TraceService {
  /** Opens (or brings back) the session's trace; `callId` selects the tool span of that tool call. */
  showTrace(sessionId: string, options?: { callId?: string }): Promise<void>;
  /** Re-reads the session list, and lets open panels follow a session that started or stopped running here. */
  refresh(): void;
  /** Brings back a trace panel VS Code kept across a restart (`state` is what the viewer noted: its session). */
  restore(panel: vscode.WebviewPanel, state: unknown): Promise<void>;
  /** What the Traces view shows, as VS Code asks for it (for tests, and for anything listing sessions the same way). */
  readonly tree: vscode.TreeDataProvider<SessionNode>;
}

export function registerTraces(context: vscode.ExtensionContext, deps: TraceDeps): TraceService {
  let cached: { home: string; store: SessionStore } | undefined;
  const currentStore = (): SessionStore => {
    const home = deps.dataHome();
    if (cached?.home !== home) cached = { home, store: new SessionStore({ dataHome: home }) };
    return cached.store;
  };
  const view = new TracesView(currentStore, deps.workspaceRoot);
  const panels = new Map<string, TracePanel>();

  const openPanel = (sessionId: string, title: string, restored?: vscode.WebviewPanel): TracePanel => {
    const panel = new TracePanel({
      ...(restored ? { restored } : {}),
      extensionUri: context.extensionUri,
      store: currentStore(),
      sessionId,
      title,
      liveTrace: () => deps.liveTrace(sessionId),
      defaultFolder: () => {
        const root = deps.workspaceRoot();
        return root !== undefined ? vscode.Uri.file(root) : undefined;
      },
    });
    panels.set(sessionId, panel);
    panel.onDidClose(() => panels.delete(sessionId));
    return panel;
  };

  const service: TraceService = {
    async showTrace(sessionId, options = {}) {
      const target = resolveTarget(currentStore(), sessionId, options.callId, deps.liveTrace(sessionId) !== undefined);
      if (typeof target === 'string') {
        void vscode.window.showErrorMessage(target);
        return;
      }
      const panel = panels.get(target.sessionId) ?? openPanel(target.sessionId, target.title);
      panel.reveal(target.callId !== undefined ? { callId: target.callId } : {});
    },
    refresh() {
      view.refresh();
      for (const panel of panels.values()) panel.sync();
    },
    async restore(panel, state) {
      const { sessionId, title } = (state ?? {}) as { sessionId?: unknown; title?: unknown };
      const known = typeof sessionId === 'string' && !panels.has(sessionId) && currentStore().list().some((meta) => meta.id === sessionId);
      // A session deleted since, or a panel already open for it: nothing to bring back.
      if (!known) return panel.dispose();
      openPanel(sessionId, typeof title === 'string' ? title : sessionId, panel);
    },
    tree: view,
  };

  context.subscriptions.push(
    view,
    vscode.window.createTreeView('crow.traces', { treeDataProvider: view, showCollapseAll: true }),
    vscode.commands.registerCommand('crow.showTrace', (target?: unknown, options?: { callId?: string }) => showTraceCommand(service, view, target, options)),
    vscode.commands.registerCommand('crow.traces.refresh', () => service.refresh()),
    vscode.window.registerWebviewPanelSerializer(TRACE_PANEL_TYPE, {
      // After a restart VS Code hands back the panels it kept, with the session the viewer noted.
      deserializeWebviewPanel: async (panel, state: unknown) => service.restore(panel, state),
    }),
    { dispose: () => [...panels.values()].forEach((panel) => panel.dispose()) },
  );
  // Until now the view (shown before Crow is active) read "Loading…": VS Code shows welcome text while a view has no provider.
  void vscode.commands.executeCommand('setContext', TRACES_READY, true);
  return service;
}

/** The context key the Traces view's welcome text waits on (package.json, viewsWelcome). */
export const TRACES_READY = 'crow.tracesReady';

/** `crow.showTrace` takes a session id, a Traces view item, or nothing (then asks). */
async function showTraceCommand(service: TraceService, view: TracesView, target: unknown, options: { callId?: string } = {}): Promise<void> {
  const sessionId = typeof target === 'string' ? target : isSessionNode(target) ? target.meta.id : await pickSession(view);
  if (sessionId !== undefined) await service.showTrace(sessionId, options);
}

function isSessionNode(value: unknown): value is SessionNode {
  return typeof value === 'object' && value !== null && typeof (value as SessionNode).meta?.id === 'string';
}

async function pickSession(view: TracesView): Promise<string | undefined> {
  const items: (vscode.QuickPickItem & { sessionId: string })[] = [];
  const add = (node: SessionNode, depth: number): void => {
    items.push({
      label: `${depth > 0 ? '↳ '.padStart(depth * 2 + 2) : ''}${node.meta.title || t('(untitled)')}`,
      description: `${node.meta.agentName} · ${ago(node.meta.updatedAt, Date.now())}`,
      sessionId: node.meta.id,
    });
    for (const child of node.children) add(child, depth + 1);
  };
  for (const node of view.sessions()) add(node, 0);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(t('Crow has no stored sessions for this workspace yet: send a prompt first.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: t('Show the trace of a session'), matchOnDescription: true });
  return picked?.sessionId;
}

interface TraceTarget {
  sessionId: string;
  title: string;
  callId?: string;
}

/**
 * The panel to open for a session, or an error to show. A subagent's runs
 * are traced under the task call of its parent (one trace from the user's
 * prompt down), so a subagent session with no spans of its own opens its
 * parent's trace at that task call.
 */
function resolveTarget(store: SessionStore, sessionId: string, callId: string | undefined, live: boolean): TraceTarget | string {
  let meta;
  try {
    meta = store.meta(sessionId);
  } catch {
    if (live && /^[A-Za-z0-9_-]{1,100}$/.test(sessionId)) return { sessionId, title: sessionId, ...(callId !== undefined ? { callId } : {}) };
    return t`Crow has no stored session "${sessionId}". The Traces view lists the sessions of this workspace.`;
  }
  if (meta.parent && callId === undefined && store.spans(sessionId).length === 0) {
    const parent = store.list().find((other) => other.internal.some((internal) => internal.id === meta.parent!.sessionId));
    if (parent) return { sessionId: parent.id, title: parent.title || parent.id, callId: meta.parent.callId };
  }
  return { sessionId, title: meta.title || sessionId, ...(callId !== undefined ? { callId } : {}) };
}
