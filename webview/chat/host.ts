/**
 * The webview's side of the channel to the extension host: the one
 * `acquireVsCodeApi()` handle (VS Code allows a single call per page), typed
 * posting of WebviewMessages, the check that an incoming message is a
 * HostMessage, and the small UI state kept across reloads by `setState`.
 */
import type { HostMessage, WebviewMessage } from './protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): unknown;
}

declare function acquireVsCodeApi(): VsCodeApi;

export type Post = (message: WebviewMessage) => void;

/**
 * What the view keeps when VS Code reloads it (hidden and shown again): only
 * what the host cannot replay. The transcript itself comes back from the host
 * as `init` followed by `events`.
 */
export interface ViewState {
  /** The unsent text in the prompt box. */
  draft: string;
  /** Whether the session list is unfolded. */
  sessionsOpen: boolean;
}

const EMPTY_STATE: ViewState = { draft: '', sessionsOpen: false };

export class Host {
  private readonly api = acquireVsCodeApi();
  private state: ViewState;

  constructor() {
    this.state = readState(this.api.getState());
  }

  readonly post: Post = (message) => this.api.postMessage(message);

  get saved(): ViewState {
    return this.state;
  }

  save(change: Partial<ViewState>): void {
    this.state = { ...this.state, ...change };
    this.api.setState(this.state);
  }
}

function readState(value: unknown): ViewState {
  if (typeof value !== 'object' || value === null) return EMPTY_STATE;
  const state = value as Partial<ViewState>;
  return {
    draft: typeof state.draft === 'string' ? state.draft : '',
    sessionsOpen: state.sessionsOpen === true,
  };
}

/** Every type the host sends, as a record so that a new message type fails the build until it is listed here. */
const HOST_TYPE_LIST: Record<HostMessage['type'], true> = {
  init: true,
  reset: true,
  events: true,
  agents: true,
  sessions: true,
  busy: true,
  queue: true,
  meter: true,
  approval: true,
  approval_done: true,
  approval_invalid: true,
  approval_change: true,
  question: true,
  suggestions: true,
  question_done: true,
  question_invalid: true,
  restored: true,
  change_counts: true,
  hunks: true,
  hunk_undone: true,
  hunk_kept: true,
  rules: true,
  attempts_count: true,
  attempts: true,
  background_runs: true,
  prefill: true,
  setup: true,
  server_test: true,
  setup_error: true,
};
const HOST_TYPES: ReadonlySet<string> = new Set(Object.keys(HOST_TYPE_LIST));

/** Whether a `message` event's data is one of the host's messages; anything else is ignored. */
export function isHostMessage(value: unknown): value is HostMessage {
  return typeof value === 'object' && value !== null && HOST_TYPES.has(String((value as { type?: unknown }).type));
}

/** Posts `open_file`, with the line only when there is one. */
export function fileOpener(post: Post): (path: string, line?: number) => void {
  return (path, line) => post(line !== undefined ? { type: 'open_file', path, line } : { type: 'open_file', path });
}
