/**
 * The line under a prompt's answer that says how it ended, with what the
 * person can do next: Retry, Set up a provider, Open settings and Show log
 * after an error; Resume after an interruption; Raise the limit and
 * Continue at a spending limit.
 */
import { button, el } from './elements';
import { t } from './l10n';
import type { Post } from './host';
import type { PromptStatus, TranscriptEvent } from './protocol';

type PromptEnd = Extract<TranscriptEvent, { type: 'prompt_end' }>;

/** The line's word per status; none when the agent simply handed back (the answer says it all). */
function ending(status: PromptStatus): string | undefined {
  switch (status) {
    case 'completed':
      return t('Done');
    case 'needs_input':
      return undefined;
    case 'limit':
      return t('Stopped at a limit');
    case 'budget':
      return t('Stopped at the spending limit');
    case 'cancelled':
      return t('Cancelled');
    case 'error':
      return t('Error');
  }
}

/** What Resume sends: the agents go on from the stored history (to the agents, so in English). */
const RESUME_PROMPT = 'You were interrupted (the window was reloaded). Go on from where you stopped.';

/** The ending's card, or undefined when the status shows none. `onSetup` opens the provider set-up. */
export function promptEndCard(event: PromptEnd, post: Post, onSetup: () => void): HTMLElement | undefined {
  const { status, message: text, hint } = event;
  // An interrupted prompt says so, once: its hint tells what happened and what Resume does.
  const said = hint?.resume ? t('Interrupted') : ending(status);
  if (said === undefined) return undefined;
  const end = el('div', `prompt-end prompt-${status}`);
  end.dataset['status'] = status;
  end.append(el('span', 'prompt-end-status', said));
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
      ...(hint?.setup ? [button(t('Set up a provider'), 'error-setup', onSetup)] : []),
      button(t('Retry'), 'error-retry', () => post({ type: 'retry' }), 'refresh'),
      ...(hint?.setting ? [button(t('Open settings'), 'error-settings', () => post({ type: 'open_settings', setting: hint.setting! }))] : []),
      button(t('Show log'), 'error-log', () => post({ type: 'show_log' }), 'output'),
    );
  }
  if (hint?.resume) {
    end.append(el('p', 'prompt-end-hint', hint.text));
    actions(button(t('Resume'), 'resume-run', () => post({ type: 'send', text: RESUME_PROMPT }), 'debug-continue'));
  }
  if (status === 'budget') {
    actions(
      ...(hint?.setting ? [button(t('Raise the limit'), 'budget-settings', () => post({ type: 'open_settings', setting: hint.setting! }))] : []),
      button(t('Continue'), 'budget-continue', () => post({ type: 'send', text: 'continue' })),
    );
  }
  return end;
}
