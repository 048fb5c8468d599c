/**
 * The line under a prompt's answer that says how it ended, with what the
 * person can do next: Retry, Set up a provider, Open settings and Show log
 * after an error; Resume after an interruption; Raise the limit and
 * Continue at a spending limit.
 */
import { button, el } from './elements';
import type { Post } from './host';
import type { PromptStatus, TranscriptEvent } from './protocol';

type PromptEnd = Extract<TranscriptEvent, { type: 'prompt_end' }>;

/** The line's word per status; none when the agent simply handed back (the answer says it all). */
const ENDINGS: Record<PromptStatus, string | undefined> = {
  completed: 'Done',
  needs_input: undefined,
  limit: 'Stopped at a limit',
  budget: 'Stopped at the spending limit',
  cancelled: 'Cancelled',
  error: 'Error',
};

/** What Resume sends: the agents go on from the stored history. */
const RESUME_PROMPT = 'You were interrupted (the window was reloaded). Go on from where you stopped.';

/** The ending's card, or undefined when the status shows none. `onSetup` opens the provider set-up. */
export function promptEndCard(event: PromptEnd, post: Post, onSetup: () => void): HTMLElement | undefined {
  const { status, message: text, hint } = event;
  // An interrupted prompt says so, once: its hint tells what happened and what Resume does.
  const ending = hint?.resume ? 'Interrupted' : ENDINGS[status];
  if (ending === undefined) return undefined;
  const end = el('div', `prompt-end prompt-${status}`);
  end.dataset['status'] = status;
  end.append(el('span', 'prompt-end-status', ending));
  if (text.trim() && !hint?.resume) end.append(el('span', 'prompt-end-message', text));
  const actions = (...buttons: HTMLButtonElement[]): void => {
    const row = el('div', 'error-actions');
    row.append(...buttons);
    end.append(row);
  };
  if (status === 'error') {
    end.setAttribute('role', 'alert');
    if (hint) end.append(el('p', 'prompt-end-hint', hint.text));
    actions(
      ...(hint?.setup ? [button('Set up a provider', 'error-setup', onSetup)] : []),
      button('Retry', 'error-retry', () => post({ type: 'retry' }), 'refresh'),
      ...(hint?.setting ? [button('Open settings', 'error-settings', () => post({ type: 'open_settings', setting: hint.setting! }))] : []),
      button('Show log', 'error-log', () => post({ type: 'show_log' }), 'output'),
    );
  }
  if (hint?.resume) {
    end.append(el('p', 'prompt-end-hint', hint.text));
    actions(button('Resume', 'resume-run', () => post({ type: 'send', text: RESUME_PROMPT }), 'debug-continue'));
  }
  if (status === 'budget') {
    actions(
      ...(hint?.setting ? [button('Raise the limit', 'budget-settings', () => post({ type: 'open_settings', setting: hint.setting! }))] : []),
      button('Continue', 'budget-continue', () => post({ type: 'send', text: 'continue' })),
    );
  }
  return end;
}
