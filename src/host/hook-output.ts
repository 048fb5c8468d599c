/**
 * What a hook said, read the way Claude Code documents it: exit code 0 is
 * success (JSON on stdout is read; other stdout is context for
 * user_prompt_submit, ignored elsewhere), exit code 2 blocks with stderr as
 * the reason, any other exit code is a failure the run goes on after. The
 * JSON: `continue: false` + `stopReason`, `decision: "block"` + `reason`,
 * `systemMessage`, and `hookSpecificOutput` with `permissionDecision`
 * (allow, deny, ask), `permissionDecisionReason`, `updatedInput`,
 * `additionalContext`.
 */
import type { HookEvent } from '../config/hook-settings';
import type { HookProcessResult } from '../tools/hook-process';
import { clipCounted } from '../vocabulary/text';

/** How much of a hook's reason or context the model and the person read. */
const MAX_TEXT_CHARS = 4_000;

/** What one run of a hook amounts to. Every field is optional: a silent success says nothing. */
export interface HookOutcome {
  /** The hook blocked what it was asked about (exit 2, decision "block", permissionDecision "deny"), for this reason. */
  blocked?: string;
  /** pre_tool_use: run without asking, or ask even where the policy allows. */
  rule?: 'allow' | 'ask';
  /** pre_tool_use: the arguments to use instead. */
  updatedInput?: Record<string, unknown>;
  /** Context for the model. */
  context?: string;
  /** The hook ended the run (continue: false), with this message. */
  stop?: string;
  /** A message for the person (systemMessage). */
  message?: string;
  /** Why the hook counts as failed (timed out, exit code, unreadable output); the run goes on without it. */
  failure?: string;
  /** What its output got wrong, while the rest of it still counts. */
  problems: string[];
  /** The word the trace records: allow, deny, ask, rewrite, block, context, stop, failed, timeout, cancelled, or none. */
  decision: string;
  exitCode?: number;
}

export function readHookOutcome(event: HookEvent, run: HookProcessResult, timeoutSec: number): HookOutcome {
  if (run.aborted) return { problems: [], decision: 'cancelled' };
  if (run.timedOut) return { failure: `did not finish within its timeout of ${timeoutSec} s and was stopped`, problems: [], decision: 'timeout' };
  if (run.startError !== undefined) return { failure: run.startError, problems: [], decision: 'failed' };
  if (run.exitCode === null) return { failure: 'was killed by a signal', problems: [], decision: 'failed' };
  const exitCode = run.exitCode;
  if (exitCode === 2) {
    const reason = text(run.stderr) || `(it gave no reason: write one to stderr)`;
    return { blocked: reason, problems: [], decision: event === 'pre_tool_use' ? 'deny' : 'block', exitCode };
  }
  if (exitCode !== 0) {
    const said = text(run.stderr) || text(run.stdout);
    return { failure: `failed with exit code ${exitCode}${said ? `: ${said}` : ''}`, problems: [], decision: 'failed', exitCode };
  }
  const stdout = run.stdout.trim();
  if (!stdout.startsWith('{')) {
    const context = event === 'user_prompt_submit' && stdout !== '' ? clipCounted(stdout, MAX_TEXT_CHARS) : undefined;
    return { ...(context !== undefined ? { context } : {}), problems: [], decision: context !== undefined ? 'context' : 'none', exitCode };
  }
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch (err) {
    return { failure: `printed output that starts like JSON but is not (${(err as Error).message})`, problems: [], decision: 'failed', exitCode };
  }
  return { ...fromJson(event, json as Record<string, unknown>), exitCode };
}

/** The decisions of a hook's JSON output; a field of the wrong kind is a problem, and left out. */
function fromJson(event: HookEvent, json: Record<string, unknown>): HookOutcome {
  const outcome: HookOutcome = { problems: [], decision: 'none' };
  const field = <T>(value: unknown, name: string, check: (value: unknown) => value is T, want: string): T | undefined => {
    if (value === undefined || value === null) return undefined;
    if (check(value)) return value;
    outcome.problems.push(`"${name}" should be ${want}, not ${JSON.stringify(value)}`);
    return undefined;
  };
  const specific = field(json.hookSpecificOutput, 'hookSpecificOutput', isObject, 'an object') ?? {};
  const message = field(json.systemMessage, 'systemMessage', isString, 'text');
  if (message !== undefined) outcome.message = clipCounted(message, MAX_TEXT_CHARS);
  const context = field(specific.additionalContext, 'hookSpecificOutput.additionalContext', isString, 'text');
  if (context !== undefined && context.trim() !== '') outcome.context = clipCounted(context.trim(), MAX_TEXT_CHARS);
  const reason = field(json.reason, 'reason', isString, 'text');
  const decision = field(json.decision, 'decision', (v): v is 'block' | 'approve' => v === 'block' || v === 'approve', '"block"');
  if (decision === 'block') outcome.blocked = text(reason ?? '') || '(it gave no reason)';
  if (event === 'pre_tool_use') readPreToolUse(outcome, specific, decision, field);
  if (json.continue === false) {
    const why = field(json.stopReason, 'stopReason', isString, 'text');
    outcome.stop = text(why ?? '') || '(it gave no reason)';
  } else if (json.continue !== undefined && json.continue !== true) {
    outcome.problems.push(`"continue" should be true or false, not ${JSON.stringify(json.continue)}`);
  }
  outcome.decision = decisionWord(event, outcome);
  return outcome;
}

type Field = <T>(value: unknown, name: string, check: (value: unknown) => value is T, want: string) => T | undefined;

/** permissionDecision and its reason, updatedInput, and the older decision "approve" / "block" Claude Code still reads. */
function readPreToolUse(outcome: HookOutcome, specific: Record<string, unknown>, legacy: 'block' | 'approve' | undefined, field: Field): void {
  const isRule = (v: unknown): v is 'allow' | 'deny' | 'ask' => v === 'allow' || v === 'deny' || v === 'ask';
  const decision = field(specific.permissionDecision, 'hookSpecificOutput.permissionDecision', isRule, '"allow", "deny" or "ask"') ?? (legacy === 'approve' ? 'allow' : undefined);
  const reason = field(specific.permissionDecisionReason, 'hookSpecificOutput.permissionDecisionReason', isString, 'text');
  if (decision === 'deny') outcome.blocked = text(reason ?? '') || outcome.blocked || '(it gave no reason)';
  else if (decision === 'allow' || decision === 'ask') outcome.rule = decision;
  const updated = field(specific.updatedInput, 'hookSpecificOutput.updatedInput', isObject, 'an object of arguments');
  if (updated !== undefined) outcome.updatedInput = updated;
}

function decisionWord(event: HookEvent, outcome: HookOutcome): string {
  if (outcome.stop !== undefined) return 'stop';
  if (outcome.blocked !== undefined) return event === 'pre_tool_use' ? 'deny' : 'block';
  if (outcome.updatedInput !== undefined) return 'rewrite';
  if (outcome.rule !== undefined) return outcome.rule;
  if (outcome.context !== undefined) return 'context';
  return 'none';
}

/** A hook's text for the model and the person: trimmed and capped. */
function text(value: string): string {
  return clipCounted(value.trim(), MAX_TEXT_CHARS);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}
