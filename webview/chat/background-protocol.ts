/**
 * Background runs in the chat view: prompts that run while the person
 * goes on with the chat (the chat's "Run in background", or the CLI's
 * `crow run --background` in the same folder), listed with how they stand.
 * Part of protocol.ts's unions; kept apart so they stay readable. Plain
 * JSON; the prompt is the person's own text, shown as text only.
 */

/** How a background run stands: its end's exit code in words, or `gone` (its process ended without saying how). */
export type BackgroundRunState = 'running' | 'finished' | 'stopped' | 'failed' | 'gone';

export interface BackgroundRunView {
  id: string;
  prompt: string;
  state: BackgroundRunState;
  /** ISO times. */
  startedAt: string;
  endedAt?: string;
  /** `vscode`: started from a VS Code chat (`here`: this window's); `cli`: crow run --background. */
  door: 'cli' | 'vscode';
  here: boolean;
  /** N for attempts. */
  attempts?: number;
  /** Whether Open shows it as a session (it stored one and is not running). */
  openable: boolean;
  /** Whether Stop can stop it from here. */
  stoppable: boolean;
}

/** Host → webview: the folder's background runs, newest first (the whole list each time). */
export type BackgroundHostMessage = { type: 'background_runs'; runs: BackgroundRunView[] };

/** Webview → host. */
export type BackgroundWebviewMessage =
  /** Runs `text` as a prompt of a new session in the background: the chat stays free. */
  | { type: 'send_background'; text: string }
  /** Opens the run's session in the chat (its transcript, then continued as that session). */
  | { type: 'open_background'; id: string }
  | { type: 'stop_background'; id: string };
