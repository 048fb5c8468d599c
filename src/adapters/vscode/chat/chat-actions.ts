/**
 * What the chat view asks of VS Code itself: the controller is plain Node,
 * and view-actions.ts does these with the VS Code API.
 */
import type { WebviewMessage } from '../../../../webview/chat/protocol';
import { t } from '../l10n';
import type { SetupActions } from './provider-setup';

/** What the view asks of VS Code itself. */
export interface ViewActions extends SetupActions {
  /** Asks which workspace file a code block is for (open editors first); undefined when the person dismisses the question. */
  pickFileForCode(): Promise<string | undefined>;
  /** Opens a diff editor for the change of one tool call. */
  openDiff(sessionId: string, callId: string, unified: string): Promise<void>;
  /** Opens a diff editor for a change an approval asks about, not made yet. */
  previewChange(approvalId: string, unified: string): Promise<void>;
  /** The file a change an approval asks about is for, as the editor holds it now, and its text with the change applied; throws saying why when the change no longer applies. */
  proposedChange(unified: string): Promise<ProposedChange>;
  /** Opens `change` in a diff editor whose proposed side the person may edit; what they do there comes back through `edits`. */
  editChange(approvalId: string, change: ProposedChange, edits: ChangeEdits): Promise<ChangeEditor>;
  /** Opens VS Code's settings at one of Crow's. */
  openSettings(setting: string): Promise<void>;
  /** Signs in to a remote MCP server of the folder's (the command "Crow: Sign In to MCP Server…"). */
  signInMcp(server: string): Promise<void>;
  showLog(): void;
  openFile(path: string, line?: number): Promise<void>;
  showTrace(sessionId: string, callId?: string): Promise<void>;
  /** A prompt ended or a session changed: lists elsewhere (Traces) refresh. */
  sessionsChanged(): void;
  /** Puts text on the clipboard. */
  copyText(text: string): Promise<void>;
  /** Asks once, as a modal question with `detail` under it; true when the person picks `action`. */
  confirm(question: string, detail: string, action: string): Promise<boolean>;
  /** Opens a page an MCP server asks the person to open, through VS Code's own handling of outside links; true once it opened. */
  openPage(url: string): Promise<boolean>;
  /** Inserts text at the active editor's cursor (over its selection); throws saying what to do when no editor is open. */
  insertAtCursor(text: string): Promise<void>;
}

/** A change an approval asks about, before anyone decides. */
export interface ProposedChange {
  /** Workspace-relative, as the change names it (for titles only: the call's own path is what gets written). */
  path: string;
  /** The file as it is now; undefined when the change creates it. */
  current: string | undefined;
  proposed: string;
}

/**
 * What the person does in a change's diff editor. Saving there only keeps
 * the text (an auto-save is not a yes): the card's "Allow with my changes"
 * or the editor's own title action allows it.
 */
export interface ChangeEdits {
  /** The proposed side now reads `text` (told a moment after typing stops). */
  changed(text: string): void;
}

/** A change's diff editor, open. */
export interface ChangeEditor {
  /** The proposed side as the person left it (unsaved typing included). */
  text(): string;
  /** Brings it to the front again. */
  reveal(): Promise<void>;
  /** Closes it; nothing the person does there afterwards is applied. */
  close(): Promise<void>;
}

/** The view's messages that only open or copy something in the editor. */
export type EditorMessage = Extract<
  WebviewMessage,
  { type: 'open_settings' | 'mcp_sign_in' | 'show_log' | 'open_diff' | 'preview_approval' | 'open_file' | 'show_trace' | 'copy_code' | 'insert_code' }
>;

/** What an editor message may name of the open session: its id (none before the first prompt), a shown call's change, a pending approval's. */
export interface OpenSession {
  id: string | undefined;
  diffOf(callId: string): string | undefined;
  approvalDiffOf(approvalId: string): string | undefined;
}

/** Does what an editor message asks; throws saying what to do when what it names is gone. */
export async function editorAction(actions: ViewActions, message: EditorMessage, open: OpenSession): Promise<void> {
  switch (message.type) {
    case 'open_settings':
      return actions.openSettings(message.setting);
    case 'mcp_sign_in':
      return actions.signInMcp(message.server);
    case 'show_log':
      return actions.showLog();
    case 'open_diff': {
      const unified = open.diffOf(message.callId);
      if (unified === undefined || open.id === undefined) throw new Error(t('That change is no longer available to show; open the trace to see it.'));
      return actions.openDiff(open.id, message.callId, unified);
    }
    case 'preview_approval': {
      const unified = open.approvalDiffOf(message.id);
      if (unified === undefined) throw new Error(t('That approval is no longer pending, or has no change to preview.'));
      return actions.previewChange(message.id, unified);
    }
    case 'open_file':
      return actions.openFile(message.path, message.line);
    case 'show_trace':
      if (open.id === undefined) throw new Error(t('Nothing to trace yet: send a prompt first.'));
      return actions.showTrace(open.id, message.callId);
    case 'copy_code':
      return actions.copyText(message.text);
    case 'insert_code':
      return actions.insertAtCursor(message.text);
  }
}
