/**
 * The Traces view: the workspace's stored sessions, newest first, each
 * subagent's session under the session that started it. Clicking one opens
 * its trace. The list follows the store (a watcher on the sessions' meta.json
 * files) and refreshes on demand; figures that need the trace file (prompts,
 * cost) are read only when a tooltip is shown.
 */
import { mkdirSync } from 'node:fs';
import * as vscode from 'vscode';
import { t } from '../l10n';
import { PRIVATE_DIR_MODE } from '../../../config/paths';
import type { SessionMeta } from '../../../session/meta-file';
import type { SessionStore } from '../../../session/session-store';
import { watchOutsideWorkspace } from '../outside-watch';
import { sessionTotals } from './session-totals';

export interface SessionNode {
  meta: SessionMeta;
  children: SessionNode[];
  /** The session whose subagent this one ran, when it is listed. */
  parent?: SessionNode;
}

/** Changes to the store arrive in bursts (meta.json is rewritten per prompt and per todo); one refresh per burst. */
const REFRESH_DELAY_MS = 300;

export class TracesView implements vscode.TreeDataProvider<SessionNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly watcher: vscode.Disposable;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: () => SessionStore,
    private readonly workspaceRoot: () => string | undefined,
  ) {
    const root = store().root;
    // The folder must exist for the watcher to see the first session appear.
    mkdirSync(root, { recursive: true, mode: PRIVATE_DIR_MODE });
    // A session's meta.json, and a session folder that appears or goes (crow run in a terminal creates one).
    this.watcher = watchOutsideWorkspace(root, '*/meta.json', () => this.refreshSoon());
  }

  refresh(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.changed.fire(undefined);
  }

  /** The sessions of the workspace (all of them without a folder open), as trees. */
  sessions(): SessionNode[] {
    const root = this.workspaceRoot();
    return nestSessions(this.store().list(root !== undefined ? { cwd: root } : {}));
  }

  getChildren(node?: SessionNode): SessionNode[] {
    return node ? node.children : this.sessions();
  }

  getParent(node: SessionNode): SessionNode | undefined {
    return node.parent;
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    const { meta } = node;
    const item = new vscode.TreeItem(
      meta.title || t('(untitled)'),
      node.children.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = meta.id;
    item.description = `${meta.parent ? `${t`subagent of ${meta.parent.agent}`} · ` : ''}${meta.agentName} · ${ago(meta.updatedAt, Date.now())}`;
    item.iconPath = new vscode.ThemeIcon(meta.parent ? 'hubot' : 'comment-discussion');
    item.contextValue = 'crow.session';
    item.command = { command: 'crow.showTrace', title: t('Show Trace'), arguments: [meta.id] };
    return item;
  }

  /** The tooltip, read from the trace file only when someone hovers. */
  resolveTreeItem(item: vscode.TreeItem, node: SessionNode): vscode.TreeItem {
    const { meta } = node;
    const totals = sessionTotals(this.store(), meta.id);
    const lines = [
      `**${escapeMarkdown(meta.title || t('(untitled)'))}**`,
      '',
      t`Agent: ${escapeMarkdown(meta.agentName)}`,
      t`Started: ${new Date(meta.createdAt).toLocaleString()}`,
      t`Last change: ${new Date(meta.updatedAt).toLocaleString()}`,
      `${t`Prompts: ${totals.prompts}`}${totals.costUsd > 0 ? ` · ${t`cost $${totals.costUsd.toFixed(4)}`}` : ''}`,
      t`Session: \`${meta.id}\``,
    ];
    item.tooltip = new vscode.MarkdownString(lines.join('  \n'));
    return item;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.watcher.dispose();
    this.changed.dispose();
  }

  private refreshSoon(): void {
    this.timer ??= setTimeout(() => this.refresh(), REFRESH_DELAY_MS);
  }
}

/**
 * Puts each subagent's session under the session that started it. A
 * subagent names the internal session (one agent's history) of its parent,
 * so those ids are mapped to the sessions holding them first. A session
 * whose parent is not listed stays at the top. Order is kept.
 */
export function nestSessions(metas: SessionMeta[]): SessionNode[] {
  const nodes = new Map(metas.map((meta): [string, SessionNode] => [meta.id, { meta, children: [] }]));
  const owner = new Map<string, string>();
  for (const meta of metas) for (const internal of meta.internal) owner.set(internal.id, meta.id);
  const roots: SessionNode[] = [];
  for (const node of nodes.values()) {
    const parentId = node.meta.parent ? (owner.get(node.meta.parent.sessionId) ?? node.meta.parent.sessionId) : undefined;
    const parent = parentId !== undefined && parentId !== node.meta.id ? nodes.get(parentId) : undefined;
    if (parent) {
      node.parent = parent;
      parent.children.push(node);
    } else {
      roots.push(node);
    }
  }
  return roots;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", then the date. */
export function ago(then: number, now: number): string {
  const minutes = Math.floor((now - then) / 60_000);
  if (minutes < 1) return t('just now');
  if (minutes < 60) return t`${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return t`${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return t('1 day ago');
  return days < 7 ? t`${days} days ago` : new Date(then).toLocaleDateString();
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
}
