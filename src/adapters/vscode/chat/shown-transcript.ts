/**
 * What the chat view shows of the open session, kept on the host side: a
 * reloaded view is rebuilt from it, and the view's buttons are answered from
 * it (the diff behind "Open diff", who an approval's agent is).
 */
import type { Actor, TranscriptEvent } from '../../../../webview/chat/protocol';

export class ShownTranscript {
  private events: TranscriptEvent[] = [];
  /** The latest progress of each call still running (kept apart: each replaces the one before, its end makes it moot). */
  private readonly running = new Map<string, TranscriptEvent>();
  private readonly diffs = new Map<string, string>();
  private readonly actors = new Map<string, Actor>();

  /** Keeps one event shown. */
  remember(event: TranscriptEvent): void {
    if (event.type === 'tool_progress') {
      this.running.set(event.callId, event);
      return;
    }
    if (event.type === 'tool_end') this.running.delete(event.callId);
    if (event.type === 'prompt_end') this.running.clear();
    this.events.push(event);
    if (event.type === 'tool_end' && event.diff) this.diffs.set(event.callId, event.diff.unified);
    if (event.type === 'tool_start' || event.type === 'text_delta' || event.type === 'thinking_delta') this.actors.set(event.actor.agent, event.actor);
  }

  /** Forgets everything: another session opens. */
  clear(): void {
    this.events = [];
    this.running.clear();
    this.diffs.clear();
    this.actors.clear();
  }

  /** What rebuilds a view: every event shown, then the latest progress of the calls still running. */
  get all(): TranscriptEvent[] {
    return [...this.events, ...this.running.values()];
  }

  get empty(): boolean {
    return this.events.length === 0;
  }

  /** The unified diff of a call's change, while its session is open. */
  diff(callId: string): string | undefined {
    return this.diffs.get(callId);
  }

  actor(agent: string): Actor | undefined {
    return this.actors.get(agent);
  }
}
