/**
 * Resuming a compacted session through the real binary against the fake
 * model server: the request is the same whether the history is read from
 * its last compaction on (as now) or whole (a session stored by an older
 * Crow, without the mark in meta.json), even with everything before the
 * compaction made unreadable; and crow undo --to a checkpoint before the
 * compaction still takes the conversation back there.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedReply } from '../../testkit/fake-llm-server';
import { binarySuite } from '../support/binary-suite';
import { runCrow } from '../support/crow-binary';
import { userConfigDir } from '../support/doors';
import { isolatedEnv } from '../support/isolated-env';

const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });
const call = (name: string, args: unknown): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });

describe('resuming a compacted session through crow run', function () {
  this.timeout(90_000);
  const suite = binarySuite('resume');
  beforeEach(() => mkdirSync(userConfigDir(suite.home), { recursive: true }));

  const env = (home: string): NodeJS.ProcessEnv => isolatedEnv(join(suite.base, home), { ANTHROPIC_API_KEY: 'resume-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl });
  const crow = (home: string, ...args: string[]) => runCrow(args, env(home), suite.root);
  const sessionFolder = (home: string): string => {
    const sessions = join(suite.base, home, 'data', 'crow-agent', 'sessions');
    return join(sessions, readdirSync(sessions)[0]!);
  };
  const lastMessages = (): string => JSON.stringify(suite.llm.requestsFor('anthropic').at(-1)!.body.messages);

  /** Two prompts (the first writes 400 KB, so the history is long), then /compact. */
  async function compactedSession(): Promise<void> {
    suite.llm.enqueue(
      'anthropic',
      call('write_file', { path: 'big.txt', content: 'a line of the big file\n'.repeat(18_000) }),
      say('First done.'),
      call('write_file', { path: 'small.txt', content: 'small\n' }),
      say('Second done.'),
      say('Summary: big.txt and small.txt were written.'),
    );
    assert.equal((await crow('home', 'run', 'First prompt', '--allow', 'all')).code, 0);
    assert.equal((await crow('home', 'run', 'Second prompt', '--allow', 'all', '--continue')).code, 0);
    const compacted = await crow('home', 'run', '/compact', '--continue');
    assert.equal(compacted.code, 0, compacted.stderr);
  }

  it('sends the same request as a whole read of the history, and never reads what the compaction replaced', async () => {
    await compactedSession();
    // The same session as an older Crow stored it (no mark: read whole), and one whose history before the compaction is unreadable.
    cpSync(join(suite.base, 'home'), join(suite.base, 'old'), { recursive: true });
    cpSync(join(suite.base, 'home'), join(suite.base, 'blank'), { recursive: true });
    const oldMeta = join(sessionFolder('old'), 'meta.json');
    const meta = JSON.parse(readFileSync(oldMeta, 'utf8')) as { internal: { id: string; mark?: unknown }[] };
    assert.ok(meta.internal.every((internal) => internal.mark !== undefined), 'meta.json keeps a mark per history');
    for (const internal of meta.internal) delete internal.mark;
    writeFileSync(oldMeta, JSON.stringify(meta));
    for (const internal of meta.internal) {
      const file = join(sessionFolder('blank'), `${internal.id}.jsonl`);
      const lines = readFileSync(file, 'utf8').split('\n');
      const compaction = lines.findLastIndex((line) => line.includes('"kind":"compaction"'));
      if (compaction < 0) continue;
      const upTo = (JSON.parse(lines[compaction]!) as { upTo: number }).upTo;
      writeFileSync(file, lines.map((line, index) => (index < upTo ? ' '.repeat(Buffer.byteLength(line)) : line)).join('\n'));
    }

    const sent: string[] = [];
    for (const home of ['home', 'old', 'blank']) {
      suite.llm.enqueue('anthropic', say('Third done.'));
      const run = await crow(home, 'run', 'Third prompt', '--continue');
      assert.equal(run.code, 0, `${home}: ${run.stderr}`);
      sent.push(lastMessages());
    }
    assert.match(sent[0]!, /Summary: big\.txt and small\.txt were written\.[\s\S]*Third prompt/);
    assert.doesNotMatch(sent[0]!, /a line of the big file|First done/);
    assert.equal(sent[1], sent[0], 'an older session, read whole');
    assert.equal(sent[2], sent[0], 'nothing before the compaction was read');
  });

  it('resumes a long live tail after a compaction Crow made itself from where the view begins: the request of a whole read, nothing before it read', async () => {
    // In a 400k-token window, eleven 120 KB writes fill it: Crow summarises all but the newest quarter, and six more writes follow.
    suite.llm.setContextWindow(1_000_000);
    writeFileSync(join(userConfigDir(suite.home), 'config.toml'), '[providers.anthropic.models."claude-sonnet-4-6"]\ncontext_window = 400000\n');
    const content = 'abcdefghij'.repeat(12_000);
    let writes = 0;
    suite.llm.respondWith('anthropic', (body) => {
      if (/this session is being compacted/.test(JSON.stringify(body.messages))) return say('Summary: the first files were written.');
      return writes < 17 ? call('write_file', { path: `f${writes++}.txt`, content }) : say('Done.');
    });
    const made = await crow('home', 'run', 'Write the files.', '--allow', 'all');
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stderr, /compacted to fit the context window/);

    const meta = JSON.parse(readFileSync(join(sessionFolder('home'), 'meta.json'), 'utf8')) as { internal: { id: string }[] };
    const file = (home: string): string => join(sessionFolder(home), `${meta.internal[0]!.id}.jsonl`);
    const lines = readFileSync(file('home'), 'utf8').split('\n');
    const at = lines.findLastIndex((line) => line.includes('"kind":"compaction"'));
    const { upTo } = JSON.parse(lines[at]!) as { upTo: number };
    assert.ok(upTo > 0 && upTo < at, `the compaction keeps a live tail (cut at ${upTo}, written at ${at})`);
    assert.ok(lines.length - at > 12, `turns go on after the compaction (${lines.length - at} lines)`);

    // The same session read whole (as an older Crow stored it, no mark), and one whose lines before the cut are garbage a read would warn of.
    for (const home of ['old', 'garbled', 'garbled-old']) cpSync(join(suite.base, 'home'), join(suite.base, home), { recursive: true });
    for (const home of ['old', 'garbled-old']) {
      const metaFile = join(sessionFolder(home), 'meta.json');
      const old = JSON.parse(readFileSync(metaFile, 'utf8')) as { internal: { mark?: unknown }[] };
      for (const internal of old.internal) delete internal.mark;
      writeFileSync(metaFile, JSON.stringify(old));
    }
    for (const home of ['garbled', 'garbled-old']) {
      writeFileSync(file(home), lines.map((line, index) => (index < upTo ? 'x'.repeat(Buffer.byteLength(line)) : line)).join('\n'));
    }
    const whole = await crow('garbled-old', 'run', 'Next prompt', '--continue');
    assert.match(whole.stderr, /unreadable line; skipped it/, 'a read of the lines before the cut warns of them');

    for (const prompt of ['Next prompt', 'And the next']) {
      const sent: string[] = [];
      for (const home of ['home', 'old', 'garbled']) {
        const run = await crow(home, 'run', prompt, '--continue');
        assert.equal(run.code, 0, `${home}: ${run.stderr}`);
        assert.doesNotMatch(run.stderr, /warning/, `${home}: ${run.stderr}`);
        sent.push(lastMessages());
      }
      assert.match(sent[0]!, new RegExp(`Summary: the first files were written\\.[\\s\\S]*f16\\.txt[\\s\\S]*${prompt}`));
      assert.doesNotMatch(sent[0]!, /"f0\.txt"/);
      assert.equal(sent[1], sent[0], `${prompt}: the request of a whole read`);
      assert.equal(sent[2], sent[0], `${prompt}: nothing before the view was read (after a save too)`);
    }
  });

  it('rewinds the conversation to a checkpoint before the compaction', async () => {
    await compactedSession();
    // #1 First prompt, #2 write_file big.txt, #3 Second prompt, #4 write_file small.txt.
    const rewound = await crow('home', 'undo', '--to', '3', '--conversation-only', '--yes');
    assert.equal(rewound.code, 0, rewound.stderr);
    suite.llm.enqueue('anthropic', say('Going on from the first prompt.'));
    assert.equal((await crow('home', 'run', 'Go on', '--continue')).code, 0);
    const sent = lastMessages();
    assert.match(sent, /First prompt[\s\S]*a line of the big file[\s\S]*First done\.[\s\S]*Go on/);
    assert.doesNotMatch(sent, /Second prompt|Summary:/);
  });
});
