/**
 * Says an approval is waiting wherever the person looks: a badge on the Crow
 * view, a status bar item, and, while the view is hidden, a notification.
 * Clicking the item or the notification's "Show" brings the chat view up, its
 * question in sight. Fed by the messages the host posts to the view.
 */
import * as vscode from 'vscode';
import { t } from '../l10n';
import type { HostMessage } from '../../../../webview/chat/protocol';

export class ApprovalSignals implements vscode.Disposable {
  /** Pending questions by id, oldest first, with what they ask. */
  private readonly pending = new Map<string, string>();
  private item: vscode.StatusBarItem | undefined;

  constructor(
    private readonly view: () => vscode.WebviewView | undefined,
    private readonly reveal: () => Thenable<unknown>,
  ) {}

  /** How many questions wait: what the badge shows. */
  get count(): number {
    return this.pending.size;
  }

  /** The status bar item's text, while one shows. */
  get statusText(): string | undefined {
    return this.pending.size > 0 ? this.item?.text : undefined;
  }

  observe(message: HostMessage): void {
    switch (message.type) {
      case 'approval':
        if (this.pending.has(message.request.id)) return;
        this.pending.set(message.request.id, message.request.title);
        if (!this.view()?.visible) this.notify(message.request.actor.agent, message.request.title);
        break;
      case 'approval_done':
        if (!this.pending.delete(message.id)) return;
        break;
      case 'reset':
        if (this.pending.size === 0) return;
        this.pending.clear();
        break;
      default:
        return;
    }
    this.update();
  }

  /** A view that (re)appears gets the badge as things stand. */
  update(): void {
    const count = this.pending.size;
    const view = this.view();
    const tooltip = count === 1 ? t`Crow waits for your approval: ${[...this.pending.values()][0] ?? ''}` : t`Crow waits for ${count} approvals`;
    if (view) view.badge = count > 0 ? { value: count, tooltip } : undefined;
    if (count === 0) {
      this.item?.hide();
      return;
    }
    this.item ??= this.createItem();
    this.item.text = `$(bell-dot) ${count === 1 ? t('Crow: approval waiting') : t`Crow: ${count} approvals waiting`}`;
    this.item.tooltip = tooltip;
    this.item.show();
  }

  dispose(): void {
    this.item?.dispose();
  }

  private createItem(): vscode.StatusBarItem {
    const item = vscode.window.createStatusBarItem('crow.approvals', vscode.StatusBarAlignment.Left, 100);
    item.name = t('Crow approvals');
    item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    item.command = { title: t('Show the approval'), command: 'crow.chat.focus' };
    return item;
  }

  private notify(agent: string, title: string): void {
    // Not awaited: the promise settles only when the notification closes.
    const show = t('Show');
    void vscode.window.showInformationMessage(t`Crow: ${agent} waits for your approval: ${title}`, show).then((choice) => {
      if (choice === show) void this.reveal();
    });
  }
}
