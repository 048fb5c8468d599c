/**
 * Hooks around tool calls, as the engine applies them: a denied call is
 * not run and the model reads why, rewritten arguments are what runs (and
 * what the doors show), a hook's allow or ask meets the permission gate,
 * post_tool_use notes follow the result, and continue: false ends the turn.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { defineTool } from '../../../src/tools/define-tool';
import type { CallAfterword, CallVerdict, HookedCall, HookedResult, Hooks, PromptVerdict } from '../../../src/tools/hooks';
import { PermissionGate } from '../../../src/tools/permissions';
import type { HookEvent } from '../../../src/config/hook-settings';
import { echoTool, eventsOfType, runTurn } from '../../support/engine';

/** Hooks answering from a script: what beforeCall and afterCall return per tool, with every call they saw. */
class ScriptedHooks implements Hooks {
  readonly before: HookedCall[] = [];
  readonly after: { call: HookedCall; result: HookedResult }[] = [];

  constructor(
    private readonly verdicts: Record<string, CallVerdict> = {},
    private readonly afterwords: Record<string, CallAfterword> = {},
  ) {}

  has(event: HookEvent): boolean {
    return event === 'pre_tool_use' || event === 'post_tool_use';
  }

  async beforeCall(call: HookedCall): Promise<CallVerdict> {
    this.before.push(call);
    return this.verdicts[call.tool] ?? { run: true, notes: [] };
  }

  async afterCall(call: HookedCall, result: HookedResult): Promise<CallAfterword> {
    this.after.push({ call, result });
    return this.afterwords[call.tool] ?? { notes: [] };
  }

  async promptSubmitted(): Promise<PromptVerdict> {
    return { context: [] };
  }

  async stopping(): Promise<{ continueWith?: string }> {
    return {};
  }
}

/** A tool that needs the write permission and records what it was run with. */
function writer(ran: unknown[]) {
  return defineTool({
    name: 'save',
    description: 'Saves a note.',
    kind: 'edit',
    permission: 'write',
    parameters: z.object({ note: z.string() }),
    async execute(args) {
      ran.push(args);
      return { output: `saved ${args.note}` };
    },
  });
}

const ASK_WRITES = { rules: { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' }, allowCommands: [] } as const;

describe('hooks around tool calls', () => {
  it('a denied call is announced, not run, and its error is the hook\'s reason; no post_tool_use runs for it', async () => {
    const ran: unknown[] = [];
    const hooks = new ScriptedHooks({ save: { run: false, reason: 'Not run: the pre_tool_use hook "guard" denied it: read-only today' } });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'save', arguments: { note: 'a' } }] }, { text: 'ok' }]);
    const { events } = await runTurn(provider, [writer(ran)], 'go', { hooks });
    assert.deepEqual(ran, []);
    assert.deepEqual(eventsOfType(events, 'tool_call_start')[0]!.arguments, { note: 'a' });
    const end = eventsOfType(events, 'tool_call_end')[0]!;
    assert.equal(end.result.status, 'error');
    assert.equal(end.result.error, 'Not run: the pre_tool_use hook "guard" denied it: read-only today');
    assert.deepEqual(end.result.metadata.extra, { hook: 'pre_tool_use' });
    assert.deepEqual(hooks.after, []);
    assert.match(JSON.stringify(provider.requests[1]!.messages.at(-1)), /read-only today/, 'the model read the reason');
  });

  it('rewritten arguments are what runs and what the doors are shown, and the model is told', async () => {
    const hooks = new ScriptedHooks({ echo: { run: true, arguments: '{"text":"safer"}', rewrittenBy: 'the pre_tool_use hook "r"', notes: ['[The hook changed this call.]'] } });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo', arguments: { text: 'risky' } }] }, { text: 'ok' }]);
    const { events } = await runTurn(provider, [echoTool], 'go', { hooks });
    assert.deepEqual(eventsOfType(events, 'tool_call_start')[0]!.arguments, { text: 'safer' });
    const end = eventsOfType(events, 'tool_call_end')[0]!;
    assert.equal(end.result.output, 'echo: safer\n\n[The hook changed this call.]');
    assert.deepEqual(hooks.after[0]!.call.arguments, { text: 'safer' }, 'post_tool_use sees what ran');
  });

  it('arguments a hook rewrote that do not fit the tool are refused, naming the hook', async () => {
    const hooks = new ScriptedHooks({ echo: { run: true, arguments: '{"words":1}', rewrittenBy: 'the pre_tool_use hook "r"', notes: [] } });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'ok' }]);
    const { events } = await runTurn(provider, [echoTool], 'go', { hooks });
    assert.match(eventsOfType(events, 'tool_call_end')[0]!.result.error ?? '', /^Invalid arguments for echo as the pre_tool_use hook "r" rewrote them: text: .*the hook's updatedInput must fit/);
  });

  it('a hook\'s allow runs a call nobody could be asked about; a policy\'s deny still denies it', async () => {
    const ran: unknown[] = [];
    const allow = new ScriptedHooks({ save: { run: true, rule: 'allow', notes: [] } });
    const script = () => new ScriptedProvider([{ toolCalls: [{ name: 'save', arguments: { note: 'a' } }] }, { text: 'ok' }]);
    await runTurn(script(), [writer(ran)], 'go', { hooks: allow, permissions: new PermissionGate({ policy: ASK_WRITES }) });
    assert.deepEqual(ran, [{ note: 'a' }]);
    const denyWrites = { ...ASK_WRITES, rules: { ...ASK_WRITES.rules, write: 'deny' } } as const;
    const { events } = await runTurn(script(), [writer(ran)], 'go', { hooks: allow, permissions: new PermissionGate({ policy: denyWrites }) });
    assert.equal(ran.length, 1);
    assert.match(eventsOfType(events, 'tool_call_end')[0]!.result.error ?? '', /the policy denies write/);
  });

  it('a hook\'s ask asks even where the policy allows; with nobody to ask, the call is not run and says what to change', async () => {
    const ran: unknown[] = [];
    const ask = new ScriptedHooks({ save: { run: true, rule: 'ask', notes: [] } });
    const allowAll = { ...ASK_WRITES, rules: { ...ASK_WRITES.rules, write: 'allow' } } as const;
    const asked: string[] = [];
    const provider = () => new ScriptedProvider([{ toolCalls: [{ name: 'save', arguments: { note: 'a' } }] }, { text: 'ok' }]);
    const person = new PermissionGate({ policy: allowAll, ask: async (request) => (asked.push(request.title), 'allow_once') });
    await runTurn(provider(), [writer(ran)], 'go', { hooks: ask, permissions: person });
    assert.equal(asked.length, 1);
    assert.deepEqual(ran, [{ note: 'a' }]);
    const { events } = await runTurn(provider(), [writer(ran)], 'go', { hooks: ask, permissions: new PermissionGate({ policy: allowAll }) });
    assert.match(eventsOfType(events, 'tool_call_end')[0]!.result.error ?? '', /^Not run: a pre_tool_use hook asks for approval of .*nobody can be asked.*make the hook answer "allow" or nothing/);
    assert.equal(ran.length, 1);
  });

  it('post_tool_use notes follow a successful result; a failed call gets none', async () => {
    const hooks = new ScriptedHooks({}, { echo: { notes: ['[Lint: 2 warnings]'] } });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }, { name: 'echo', arguments: {} }] }, { text: 'ok' }]);
    const { events } = await runTurn(provider, [echoTool], 'go', { hooks });
    const [ok, failed] = eventsOfType(events, 'tool_call_end');
    assert.equal(ok!.result.output, 'echo: x\n\n[Lint: 2 warnings]');
    assert.equal(failed!.result.status, 'error');
    assert.equal(hooks.after.length, 1);
  });

  it('continue: false from a hook ends the turn; the calls after it are not run', async () => {
    const hooks = new ScriptedHooks({}, { echo: { notes: [], stop: 'The post_tool_use hook "x" stopped the run: enough' } });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }, { name: 'echo', arguments: { text: 'b' } }] }, { text: 'never' }]);
    const { result, events } = await runTurn(provider, [echoTool], 'go', { hooks });
    assert.equal(result.stopReason, 'hook_stop');
    assert.equal(result.message, 'The post_tool_use hook "x" stopped the run: enough');
    assert.equal(provider.requests.length, 1, 'no further model call');
    assert.equal(eventsOfType(events, 'tool_call_end')[1]!.result.status, 'cancelled');
  });

  it('gives hooks the calling agent and its depth', async () => {
    const hooks = new ScriptedHooks();
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }]);
    await runTurn(provider, [echoTool], 'go', { hooks });
    assert.deepEqual(hooks.before[0], { agent: 'primary', depth: 0, callId: hooks.before[0]!.callId, tool: 'echo', arguments: { text: 'a' } });
  });
});
