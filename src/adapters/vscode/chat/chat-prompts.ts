/**
 * The chat's prompts as the view follows them: the person's message shown,
 * the view busy, every event into the transcript, the prompt's and the
 * session's meters kept current (a run of attempts counts into them too),
 * the session list refreshed once the session is stored, and one error
 * card when a prompt fails. Part of the controller (chat-controller.ts).
 */
import { errorText } from '../../../vocabulary/text';
import { applyPromptText, insideWorkspace } from '../../../host/apply-code';
import { t } from '../l10n';
import { emptyMeter, type Meter, sumMeters } from '../../../host/cost';
import type { HostMessage, TranscriptEvent } from '../../../../webview/chat/protocol';
import { ChatSession, type ChatHost, type PromptObserver } from './chat-session';
import { errorEnd, promptMessage } from './transcript-translator';

export interface PromptParts {
  host: ChatHost;
  post: (message: HostMessage) => void;
  show: (event: TranscriptEvent) => void;
  /** The session on screen: a prompt of another (replaced by New Session or Resume) shows nothing more. */
  current: () => ChatSession | undefined;
  /** A prompt starts: the last prompt's net counts are no longer its. */
  starting: () => void;
  /** A prompt ended: approvals still shown are withdrawn. */
  ended: () => void;
  /** A prompt failed for want of a provider: the set-up shows again. */
  needsSetup: () => Promise<void>;
  /** After every prompt: other views listing sessions (Traces) refresh. */
  sessionsChanged: () => void;
}

export class ChatPrompts {
  prompt = emptyMeter();
  session = emptyMeter();

  constructor(private readonly parts: PromptParts) {}

  /** Both meters as the view shows them. */
  meters(): { prompt: Meter; session: Meter } {
    return { prompt: this.prompt, session: this.session };
  }

  /** Another session opens: its meters start from what it cost so far (zero for a new one). */
  reset(session: Meter = emptyMeter()): void {
    this.prompt = emptyMeter();
    this.session = session;
  }

  /** A run of attempts starts: what takes its tokens and cost so far (the attempts' and the judge's) into the meters. */
  attemptsMeter(): (meter: Meter) => void {
    const before = this.session;
    this.prompt = emptyMeter();
    return (meter) => {
      this.prompt = meter;
      this.session = sumMeters(before, meter);
      this.parts.post({ type: 'meter', prompt: meter, session: this.session });
    };
  }

  /** Shows `text` as the person's message and follows the prompt `start` runs, keeping the view's meters and lists current. */
  async run(chat: ChatSession, text: string, start: (observer: PromptObserver) => Promise<unknown>): Promise<void> {
    const { host, post } = this.parts;
    host.lastSession?.set(chat.id);
    this.parts.show(promptMessage(text));
    this.prompt = emptyMeter();
    const before = this.session;
    post({ type: 'busy', busy: true });
    // A prompt cancelled by New Session or Resume may still be winding down: its last events are not the new session's.
    const current = (): boolean => this.parts.current() === chat;
    // The session is stored from its first prompt: listed as soon as that prompt shows something, not only at its end.
    let listed = false;
    this.parts.starting();
    try {
      await start({
        onEvent: (event) => {
          if (!current()) return;
          this.parts.show(event);
          if (listed) return;
          listed = true;
          post({ type: 'sessions', sessions: ChatSession.listed(host), current: chat.id });
        },
        onMeter: (meter) => {
          if (!current()) return;
          this.prompt = meter;
          this.session = sumMeters(before, meter);
          post({ type: 'meter', prompt: this.prompt, session: this.session });
        },
      });
    } catch (err) {
      // One card that says what went wrong and what to do (a missing key opens the set-up from it).
      if (current()) {
        const end = errorEnd(errorText(err));
        this.parts.show(end);
        if (end.hint?.setup) await this.parts.needsSetup();
      }
    } finally {
      if (current()) {
        this.parts.ended();
        post({ type: 'busy', busy: false });
        post({ type: 'sessions', sessions: ChatSession.listed(host), current: chat.id });
      }
      this.parts.sessionsChanged();
    }
  }

  /**
   * Apply on a code block: the block is proposed as the whole new text of
   * the file its fence names (or one the person picks), run as a prompt of
   * its own (src/host/apply-code.ts), so it is asked like an agent's write
   * and its change gets the changes bar, Undo and a checkpoint.
   */
  async applyCode(chat: ChatSession, block: { text: string; path?: string }, pickFile: () => Promise<string | undefined>): Promise<void> {
    if (chat.busy) throw new Error(t('Crow is still working: apply the code once the run ends, or cancel it first.'));
    const path = block.path ?? (await pickFile());
    if (path === undefined) return;
    const relative = await insideWorkspace(this.parts.host.root, path);
    await this.run(chat, applyPromptText(relative), (observer) => chat.apply(relative, block.text, observer));
  }
}
