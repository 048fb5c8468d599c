/**
 * The contract between the engine and the user's hooks (see
 * config/hook-settings.ts): what the engine asks before and after a tool
 * call, when a prompt is sent and when a run is about to end, and what it
 * is told back. The session host implements it (host/hook-runner.ts) for
 * one prompt; subagents' calls go through the same hooks.
 */
import type { HookEvent } from '../config/hook-settings';
import type { Span } from '../telemetry/span';

/** A tool call as hooks see it. */
export interface HookedCall {
  /** The agent making the call. */
  agent: string;
  /** 0 for the agent the person talks to; subagents count up. */
  depth: number;
  callId: string;
  tool: string;
  /** The arguments as the model wrote them, parsed. */
  arguments: Record<string, unknown>;
}

/** Whether a call runs, and how, after its pre_tool_use hooks. */
export type CallVerdict =
  /** Not run: `reason` is the error result the model reads; `stop` when a hook ended the run (continue: false). */
  | { run: false; reason: string; cancelled?: boolean; stop?: string }
  | {
      run: true;
      /** The arguments a hook put in place of the model's, as JSON; absent when none did. */
      arguments?: string;
      /** Which hook rewrote them, for the message when they do not fit the tool. */
      rewrittenBy?: string;
      /** A hook's word on asking: `allow` runs it without asking (a policy's deny still denies), `ask` asks even where the policy allows. */
      rule?: 'allow' | 'ask';
      /** Context the hooks add for the model, given with the call's result. */
      notes: string[];
    };

/** A call's result as post_tool_use hooks see it. */
export interface HookedResult {
  output: string;
  /** Workspace-relative paths the call changed. */
  filesModified: readonly string[];
}

/** What the post_tool_use hooks of a call say: notes the model reads with the result, and whether the run stops. */
export interface CallAfterword {
  notes: string[];
  stop?: string;
}

/** What the user_prompt_submit hooks make of a prompt. */
export interface PromptVerdict {
  /** Why the prompt is not sent to the model: the run ends with this message. */
  blocked?: string;
  /** Context the hooks add to the prompt. */
  context: string[];
}

/** A run about to end, as stop hooks see it. */
export interface RunEnding {
  /** The composition. */
  agent: string;
  /** completed or needs_input. */
  status: string;
  message: string;
  /** The answer's last text. */
  lastMessage: string;
  /** Whether this run already went on once because a stop hook said so. */
  active: boolean;
}

export interface Hooks {
  /** Whether any hook listens to `event`. */
  has(event: HookEvent): boolean;
  /** Runs the pre_tool_use hooks of a call, each seeing the arguments as the ones before it left them. */
  beforeCall(call: HookedCall, signal: AbortSignal, span: Span | undefined): Promise<CallVerdict>;
  /** Runs the post_tool_use hooks of a call that succeeded. */
  afterCall(call: HookedCall, result: HookedResult, signal: AbortSignal, span: Span | undefined): Promise<CallAfterword>;
  /** Runs the user_prompt_submit hooks before the prompt reaches the model. */
  promptSubmitted(prompt: { agent: string; text: string }, signal: AbortSignal, span: Span | undefined): Promise<PromptVerdict>;
  /** Runs the stop hooks; a reason when one of them sends the agents back to work (never when `active`: once per prompt). */
  stopping(ending: RunEnding, signal: AbortSignal, span: Span | undefined): Promise<{ continueWith?: string }>;
}
