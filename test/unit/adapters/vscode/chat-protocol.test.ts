import assert from 'node:assert/strict';
import { isWebviewMessage } from '../../../../webview/chat/message-checks';

/** The host acts on what a webview posts only when it is one of the view's messages, whole. */
describe('chat view messages from the webview', () => {
  it('accepts every message the view sends', () => {
    const messages: unknown[] = [
      { type: 'ready' },
      { type: 'send', text: 'Fix the test' },
      { type: 'cancel' },
      { type: 'new_session' },
      { type: 'resume', sessionId: 's1' },
      { type: 'pick_agent', agent: 'pair' },
      { type: 'pick_model', role: 'coagent', model: 'm' },
      { type: 'approve', id: 'a1', decision: 'allow_always' },
      { type: 'open_diff', callId: 'c1' },
      { type: 'open_file', path: 'src/a.ts', line: 12 },
      { type: 'open_file', path: 'src/a.ts' },
      { type: 'show_trace' },
      { type: 'show_trace', callId: 'c1' },
      { type: 'pick_thinking', level: 'high' },
      { type: 'preview_approval', id: 'a1' },
      { type: 'edit_change', id: 'a1' },
      { type: 'approve_change', id: 'a1' },
      { type: 'retry' },
      { type: 'open_settings', setting: 'crow.baseUrls' },
      { type: 'show_log' },
      { type: 'pick_attempts', count: 3 },
      { type: 'apply_attempt', run: 'r1', n: 2 },
      { type: 'dismiss_attempts', run: 'r1' },
    ];
    for (const message of messages) assert.equal(isWebviewMessage(message), true, JSON.stringify(message));
  });

  it('refuses unknown types, missing or mistyped fields, and prototype names', () => {
    const messages: unknown[] = [
      null,
      'send',
      { type: 'toString' },
      { type: 'constructor' },
      { type: 'exec', command: 'rm -rf /' },
      { type: 'send' },
      { type: 'send', text: 42 },
      { type: 'pick_model', role: 'admin', model: 'm' },
      { type: 'approve', id: 'a1', decision: 'reject_always' },
      { type: 'open_file', path: 'a', line: -1 },
      { type: 'open_file', path: 'a', line: 1.5 },
      { type: 'show_trace', callId: 7 },
      { type: 'pick_thinking', level: 3 },
      { type: 'preview_approval' },
      // The content and path an edited change applies are the host's, never the view's: only the approval's id is taken.
      { type: 'edit_change', id: 7 },
      { type: 'approve_change' },
      { type: 'approve_change', id: { toString: 'a1' } },
      // Settings the view may open are Crow's own: never another extension's, nor a command smuggled in as a setting id.
      { type: 'open_settings', setting: 'terminal.integrated.shell.linux' },
      { type: 'open_settings', setting: 'crow.baseUrls @ext:evil' },
      { type: 'open_settings', setting: '@command:workbench.action.terminal.new' },
      { type: 'open_settings' },
      // Attempts: 1 to 4, whole numbers; an attempt to apply is named by its run and number, nothing else.
      { type: 'pick_attempts', count: 9 },
      { type: 'pick_attempts', count: 0 },
      { type: 'pick_attempts', count: 2.5 },
      { type: 'pick_attempts', count: '3' },
      { type: 'apply_attempt', run: 'r1' },
      { type: 'apply_attempt', run: 'r1', n: 0 },
      { type: 'apply_attempt', run: 7, n: 1 },
      { type: 'dismiss_attempts' },
    ];
    for (const message of messages) assert.equal(isWebviewMessage(message), false, JSON.stringify(message));
  });
});
