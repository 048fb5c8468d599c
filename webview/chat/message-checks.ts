/**
 * What the host accepts from the chat webview: a message of a known type
 * with fields of the right types. The webview is a page the host does not
 * trust (its content renders model output), so nothing else it posts is
 * acted on.
 */
import type { WebviewMessage } from './protocol';

/** The fields each webview message must carry, by type: the host trusts nothing else a webview posts. */
const FIELDS: Record<WebviewMessage['type'], (message: Record<string, unknown>) => boolean> = {
  ready: () => true,
  send: (m) => typeof m.text === 'string',
  cancel: () => true,
  new_session: () => true,
  resume: (m) => typeof m.sessionId === 'string',
  pick_agent: (m) => typeof m.agent === 'string',
  pick_model: (m) => (m.role === 'primary' || m.role === 'coagent') && typeof m.model === 'string',
  pick_thinking: (m) => typeof m.level === 'string',
  pick_attempts: (m) => typeof m.count === 'number' && Number.isInteger(m.count) && m.count >= 1 && m.count <= 4,
  apply_attempt: (m) => typeof m.run === 'string' && typeof m.n === 'number' && Number.isInteger(m.n) && m.n >= 1 && m.n <= 4,
  dismiss_attempts: (m) => typeof m.run === 'string',
  approve: (m) => typeof m.id === 'string' && (m.decision === 'allow_once' || m.decision === 'allow_always' || m.decision === 'reject_once'),
  deny: (m) => typeof m.id === 'string' && typeof m.reason === 'string',
  approve_edited: (m) => typeof m.id === 'string' && typeof m.arguments === 'string',
  preview_approval: (m) => typeof m.id === 'string',
  edit_change: (m) => typeof m.id === 'string',
  approve_change: (m) => typeof m.id === 'string',
  answer_question: (m) =>
    typeof m.id === 'string' && (m.action === 'accept' || m.action === 'decline' || m.action === 'cancel') && (m.content === undefined || isAnswerContent(m.content)),
  suggest: (m) => (m.trigger === '/' || m.trigger === '@') && typeof m.query === 'string' && m.query.length <= 200,
  retry: () => true,
  restore: (m) => typeof m.checkpoint === 'string' && (m.mode === 'both' || m.mode === 'files' || m.mode === 'conversation'),
  edit_message: (m) => typeof m.checkpoint === 'string' && typeof m.text === 'string' && (m.files === undefined || typeof m.files === 'boolean'),
  interrupt: () => true,
  open_settings: (m) => typeof m.setting === 'string' && /^crow\.[\w.]+$/.test(m.setting),
  mcp_sign_in: (m) => typeof m.server === 'string' && m.server.length > 0 && m.server.length <= 2048,
  show_log: () => true,
  open_diff: (m) => typeof m.callId === 'string',
  open_file: (m) => typeof m.path === 'string' && (m.line === undefined || (typeof m.line === 'number' && Number.isInteger(m.line) && m.line > 0)),
  show_trace: (m) => m.callId === undefined || typeof m.callId === 'string',
  setup_key: (m) => (m.provider === 'anthropic' || m.provider === 'openai') && typeof m.key === 'string',
  test_server: (m) => typeof m.url === 'string' && (m.key === undefined || typeof m.key === 'string'),
  use_server: (m) => typeof m.url === 'string' && typeof m.model === 'string' && (m.key === undefined || typeof m.key === 'string'),
  use_vscode_model: (m) => typeof m.model === 'string',
  stop_call: (m) => typeof m.callId === 'string',
  undo_prompt: (m) => m.path === undefined || typeof m.path === 'string',
  show_hunks: (m) => typeof m.path === 'string',
  undo_hunk: (m) => typeof m.path === 'string' && typeof m.hunk === 'string',
  keep_hunk: (m) => typeof m.path === 'string' && typeof m.hunk === 'string',
  revoke_rule: (m) => typeof m.id === 'string',
  copy_code: (m) => typeof m.text === 'string',
  insert_code: (m) => typeof m.text === 'string',
  apply_code: (m) => typeof m.text === 'string' && (m.path === undefined || typeof m.path === 'string'),
  send_background: (m) => typeof m.text === 'string',
  open_background: (m) => typeof m.id === 'string' && m.id.length <= 128,
  stop_background: (m) => typeof m.id === 'string' && m.id.length <= 128,
};

/** A form's answers: names to text, numbers, yes/no or lists of text (the form's own check follows on the host). */
function isAnswerContent(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (answer) =>
      typeof answer === 'string' ||
      typeof answer === 'boolean' ||
      (typeof answer === 'number' && Number.isFinite(answer)) ||
      (Array.isArray(answer) && answer.every((item) => typeof item === 'string')),
  );
}

/** Whether a value posted by the webview is one of its messages, with fields of the right types. */
export function isWebviewMessage(value: unknown): value is WebviewMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  const check = Object.hasOwn(FIELDS, String(message.type)) ? FIELDS[message.type as WebviewMessage['type']] : undefined;
  return check !== undefined && check(message);
}
