/**
 * Spending limits through the real `crow run` against the fake model
 * server: checked before each model call with what the prompt (and the
 * session) spent so far, subagents included; the run stops cleanly, says
 * which limit and how to raise it, exits 3, and a later prompt goes on.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { userConfigDir } from '../support/doors';
import { isolatedEnv } from '../support/isolated-env';

const PRICES = '[providers.anthropic.models."claude-sonnet-4-6"]\ninput_per_mtok = 3\noutput_per_mtok = 15\n';
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });
const call = (name: string, args: unknown, input: number): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }], usage: { input, output: 10 } });

interface RunEvent {
  type: string;
  status?: string;
  message?: string;
  reason?: string;
  level?: string;
}

describe('spending limits stop a run before the model call that would pass them', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-budget-home-')));
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-budget-ws-')));
    mkdirSync(userConfigDir(home), { recursive: true });
    writeFileSync(join(root, 'notes.md'), 'notes\n');
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  const config = (toml: string): void => writeFileSync(join(userConfigDir(home), 'config.toml'), toml);
  const crow = async (...args: string[]): Promise<{ code: number | null; events: RunEvent[]; stderr: string }> => {
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'budget-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    const run = await runCrow(['run', '--json', '--allow', 'all', ...args], env, root);
    const events = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as RunEvent);
    return { code: run.code, events, stderr: run.stderr };
  };
  const ending = (events: RunEvent[]): RunEvent => events.findLast((event) => event.type === 'run_complete')!;

  it('a token limit from the flag: exit 3, the limit named with how to raise it, and the next prompt goes on', async () => {
    llm.enqueue('anthropic', call('read_file', { path: 'notes.md' }, 5_000));
    const stopped = await crow('Read the notes', '--max-tokens', '4000');
    assert.equal(stopped.code, 3, stopped.stderr);
    assert.equal(llm.requestsFor('anthropic').length, 1, 'the second call was never made');
    const end = ending(stopped.events);
    assert.equal(end.status, 'budget');
    assert.match(end.message!, /used 5,\d{3} tokens, reaching its limit of 4,000 \(limits\.max_tokens_per_prompt\)/);
    assert.match(end.message!, /Pass --max-tokens with a higher value/);
    assert.ok(stopped.events.some((event) => event.type === 'tool_call_end'), 'the call the model asked for before the limit still ran');

    llm.enqueue('anthropic', say('The notes say "notes".'));
    const next = await crow('continue', '--continue', '--max-tokens', '40000');
    assert.equal(next.code, 0, next.stderr);
    const resumed = JSON.stringify(llm.requestsFor('anthropic')[1]!.body.messages);
    assert.match(resumed, /"tool_result","tool_use_id":"toolu_[a-zA-Z0-9]+","content":" +1\\tnotes"/, 'the call run before the stop is in the history');
    assert.match(resumed, /"text":"continue"/);
  });

  it("a cost limit from config.toml counts the prompt's calls at the model's prices", async () => {
    config(`${PRICES}\n[limits]\nmax_cost_per_prompt = 0.5\n`);
    // $0.30 per call: the check before the third call finds $0.60.
    llm.enqueue('anthropic', call('read_file', { path: 'notes.md' }, 100_000), call('read_file', { path: 'notes.md' }, 100_000));
    const run = await crow('Read the notes twice');
    assert.equal(run.code, 3, run.stderr);
    assert.equal(llm.requestsFor('anthropic').length, 2);
    assert.match(ending(run.events).message!, /this prompt cost \$0\.60, reaching its limit of \$0\.50 \(limits\.max_cost_per_prompt\)/);
  });

  it('a call that would pass the limit by what it reads alone is not made: the limit is not overshot by a call', async () => {
    // About 12,000 tokens of file: the request after reading it reads them all.
    writeFileSync(join(root, 'big.md'), `${'a line of notes to read, '.repeat(4)}\n`.repeat(480));
    llm.enqueue('anthropic', call('read_file', { path: 'big.md' }, 3_000), say('Read.'));
    const run = await crow('Read the big notes', '--max-tokens', '12000');
    assert.equal(run.code, 3, run.stderr);
    assert.equal(llm.requestsFor('anthropic').length, 1, 'the second call, which would read past 12,000 tokens, was never made');
    const end = ending(run.events);
    assert.equal(end.status, 'budget');
    assert.match(end.message!, /Stopped before the next model call: it reads about [\d,]+ tokens, which would take this prompt \(3,010 so far\) past its limit of 12,000 \(limits\.max_tokens_per_prompt\)\. Pass --max-tokens with a higher value/);

    // At $3 per million input tokens the first call (3,010 tokens, under a cent) is made, the second (over 12,000 tokens, at least $0.036) is not.
    config(PRICES);
    llm.reset();
    llm.enqueue('anthropic', call('read_file', { path: 'big.md' }, 3_000), say('Read.'));
    const priced = await crow('Read the big notes', '--max-cost', '0.03');
    assert.equal(priced.code, 3, priced.stderr);
    assert.equal(llm.requestsFor('anthropic').length, 1);
    assert.match(ending(priced.events).message!, /Stopped before the next model call: it reads about [\d,]+ tokens, at least \$0\.0\d+, which would take this prompt \(\$0\.009\d so far\) past its limit of \$0\.03 \(limits\.max_cost_per_prompt\)/);
  });

  it('a summary (/compact) that would pass the limit by what it reads is not asked for, and the conversation stays as it was', async () => {
    writeFileSync(join(root, 'big.md'), `${'a line of notes to read, '.repeat(4)}\n`.repeat(480));
    llm.enqueue('anthropic', call('read_file', { path: 'big.md' }, 3_000), say('Read.'));
    assert.equal((await crow('Read the big notes')).code, 0);
    const before = llm.requestsFor('anthropic').length;
    const compact = await crow('--continue', '/compact', '--max-tokens', '4000');
    assert.equal(llm.requestsFor('anthropic').length, before, 'no summary request reading ~12,000 tokens was made under a 4,000-token limit');
    assert.match(JSON.stringify(compact.events) + compact.stderr, /summarising would pass a spending limit: .*limit of 4,000 \(limits\.max_tokens_per_prompt\)/);
    llm.enqueue('anthropic', say('Still here.'));
    assert.equal((await crow('--continue', 'go on')).code, 0, 'the conversation goes on, unsummarised');
    assert.match(JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages), /a line of notes to read/);
  });

  it("a subagent's calls count against its parent's prompt, and stop it too", async () => {
    config(`${PRICES}\n[limits]\nmax_cost_per_prompt = 0.5\n`);
    llm.enqueue(
      'anthropic',
      call('task', { agent: 'explorer', task: 'Read notes.md twice.' }, 1_000),
      call('read_file', { path: 'notes.md' }, 100_000),
      call('read_file', { path: 'notes.md' }, 100_000),
    );
    const run = await crow('Have the explorer read the notes');
    assert.equal(run.code, 3, run.stderr);
    // The parent's call, then the child's two: the child stops before its third, the parent before its second.
    assert.equal(llm.requestsFor('anthropic').length, 3);
    const end = ending(run.events);
    assert.equal(end.status, 'budget');
    assert.match(end.message!, /this prompt cost \$0\.60/);
  });

  it('a session limit counts the earlier prompts of the session', async () => {
    config(PRICES);
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'First.' }], usage: { input: 100_000, output: 10 } });
    assert.equal((await crow('First prompt')).code, 0);
    llm.enqueue('anthropic', call('read_file', { path: 'notes.md' }, 100_000));
    const run = await crow('Second prompt', '--continue', '--max-session-cost', '0.5');
    assert.equal(run.code, 3, run.stderr);
    assert.match(ending(run.events).message!, /this session cost \$0\.60, reaching its limit of \$0\.50 \(limits\.max_cost_per_session\)/);
  });

  it('a cost limit on a model without prices says its calls count as nothing, once', async () => {
    config('[limits]\nmax_cost_per_prompt = 0.01\n');
    llm.enqueue('anthropic', call('read_file', { path: 'notes.md' }, 100_000), say('Done.'));
    const run = await crow('Read the notes');
    assert.equal(run.code, 0, run.stderr);
    const notices = run.events.filter((event) => event.type === 'notice' && /no prices configured/.test(event.message ?? ''));
    assert.equal(notices.length, 1);
    assert.match(notices[0]!.message!, /claude-sonnet-4-6 has no prices configured, so its calls count as \$0 against it\. Set input_per_mtok and output_per_mtok/);
  });

  it('a limit flag that is not an amount is refused before anything runs', async () => {
    for (const [flag, value, expected] of [
      ['--max-cost', 'lots', /--max-cost must be a positive amount of US dollars, e\.g\. 0\.50, got "lots"/],
      ['--max-cost=-1', undefined, /--max-cost must be a positive amount/],
      ['--max-tokens', '1.5', /--max-tokens must be a positive integer, got "1\.5"/],
    ] as const) {
      const run = await crow('Hi', flag, ...(value !== undefined ? [value] : []));
      assert.equal(run.code, 2, `${flag} ${value}`);
      assert.match(run.stderr, expected);
    }
    assert.equal(llm.requestsFor('anthropic').length, 0);
  });
});
