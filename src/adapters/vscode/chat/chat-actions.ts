/**
 * What the chat view asks of VS Code itself: the controller is plain Node,
 * and view-actions.ts does these with the VS Code API.
 */
import type { SetupActions } from './provider-setup';

/** What the view asks of VS Code itself. */
export interface ViewActions extends SetupActions {
  /** Asks which workspace file a code block is for (open editors first); undefined when the person dismisses the question. */
  pickFileForCode(): Promise<string | undefined>;
  /** Opens a diff editor for the change of one tool call. */
  openDiff(sessionId: string, callId: string, unified: string): Promise<void>;
  /** Opens a diff editor for a change an approval asks about, not made yet. */
  previewChange(approvalId: string, unified: string): Promise<void>;
  /** Opens VS Code's settings at one of Crow's. */
  openSettings(setting: string): Promise<void>;
  showLog(): void;
  openFile(path: string, line?: number): Promise<void>;
  showTrace(sessionId: string, callId?: string): Promise<void>;
  /** A prompt ended or a session changed: lists elsewhere (Traces) refresh. */
  sessionsChanged(): void;
  /** Puts text on the clipboard. */
  copyText(text: string): Promise<void>;
  /** Asks once, as a modal question with `detail` under it; true when the person picks `action`. */
  confirm(question: string, detail: string, action: string): Promise<boolean>;
  /** Inserts text at the active editor's cursor (over its selection); throws saying what to do when no editor is open. */
  insertAtCursor(text: string): Promise<void>;
}
