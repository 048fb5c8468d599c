/**
 * Checkpoints through the real binary against the fake model server: one
 * before each prompt and each change, listed by crow sessions checkpoints;
 * crow undo --to N puts back the files (only those the agents changed after
 * it), the conversation (the next request no longer holds what came after),
 * or both; crow undo again goes one prompt further back; crow sessions fork
 * branches a new session at a checkpoint and leaves the original alone.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { userConfigDir } from '../support/doors';
import { isolatedEnv } from '../support/isolated-env';

const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });
const call = (name: string, args: unknown): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });

describe('checkpoints: rewind the files, the conversation or both to any earlier point, or fork from it', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-cp-home-')));
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-cp-ws-')));
    mkdirSync(userConfigDir(home), { recursive: true });
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv => isolatedEnv(home, { ANTHROPIC_API_KEY: 'cp-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
  const crow = (...args: string[]) => runCrow(args, env(), root);
  const file = (name: string): string | undefined => (existsSync(join(root, name)) ? readFileSync(join(root, name), 'utf8') : undefined);
  const lastRequest = (): string => JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.messages);

  /** Two prompts: the first writes a.txt and changes it with a command, the second writes b.txt and a.txt again. */
  async function twoPrompts(): Promise<string> {
    llm.enqueue(
      'anthropic',
      call('write_file', { path: 'a.txt', content: 'v1\n' }),
      call('bash', { command: 'echo v2 > a.txt' }),
      say('First done.'),
      call('write_file', { path: 'b.txt', content: 'b\n' }),
      call('write_file', { path: 'a.txt', content: 'v3\n' }),
      say('Second done.'),
    );
    assert.equal((await crow('run', 'First prompt', '--allow', 'all')).code, 0);
    // The person's own file, made between prompts: no rewind may touch it.
    writeFileSync(join(root, 'mine.txt'), 'mine\n');
    assert.equal((await crow('run', 'Second prompt', '--allow', 'all', '--continue')).code, 0);
    const list = await crow('sessions', 'list');
    return /^(\S+)/.exec(list.stdout.trim())![1]!;
  }

  it('lists a checkpoint before each prompt and each change, in order', async () => {
    const id = await twoPrompts();
    const listed = await crow('sessions', 'checkpoints', id, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const checkpoints = JSON.parse(listed.stdout) as { number: number; kind: string; label: string; prompt: string; files: boolean }[];
    assert.deepEqual(
      checkpoints.map(({ number, kind, label }) => [number, kind, label]),
      [
        [1, 'prompt', 'First prompt'],
        [2, 'tool', 'write_file a.txt'],
        [3, 'tool', 'bash echo v2 > a.txt'],
        [4, 'prompt', 'Second prompt'],
        [5, 'tool', 'write_file b.txt'],
        [6, 'tool', 'write_file a.txt'],
      ],
    );
    assert.ok(checkpoints.every((checkpoint) => checkpoint.files), 'undo recorded the files of each');
    const text = await crow('sessions', 'checkpoints', id);
    assert.match(text.stdout, /3 .*bash echo v2 > a\.txt/);
    assert.match(text.stdout, /crow undo --to N --session/);
  });

  it('rewinds files and conversation to the moment before a command, and leaves the person\'s own files alone', async () => {
    const id = await twoPrompts();
    assert.equal(file('a.txt'), 'v3\n');
    const rewound = await crow('undo', '--to', '3', '--yes');
    assert.equal(rewound.code, 0, rewound.stderr);
    assert.match(rewound.stdout, /Rewound to checkpoint #3, before bash echo v2 > a\.txt \(in "First prompt"\)\. Restored 2 files: 1 modified, 1 deleted/);
    assert.equal(file('a.txt'), 'v1\n', 'as the write left it, before the command');
    assert.equal(file('b.txt'), undefined, 'created after the checkpoint: gone');
    assert.equal(file('mine.txt'), 'mine\n');

    llm.enqueue('anthropic', say('Going on from there.'));
    assert.equal((await crow('run', 'Go on', '--continue')).code, 0);
    const sent = lastRequest();
    assert.match(sent, /First prompt/);
    assert.match(sent, /"name":"write_file"/, 'the write before the checkpoint is still read');
    assert.doesNotMatch(sent, /echo v2|Second prompt|First done/, 'nothing from the checkpoint on');
    const shown = await crow('sessions', 'show', id);
    assert.match(shown.stdout, /› \/rewind 3 both[\s\S]*Rewound to checkpoint #3/, 'the rewind is in the record, where it happened');
  });

  it('says how many prompts a rewind takes back: a prompt\'s own checkpoint counts that prompt', async () => {
    await twoPrompts();
    const toFirst = await crow('undo', '--to', '1', '--conversation-only', '--yes');
    assert.equal(toFirst.code, 0, toFirst.stderr);
    assert.match(toFirst.stdout, /conversation: the agents forget everything after it, 2 prompts included\n/, 'before the first prompt: both');
    await twoPrompts();
    const toCommand = await crow('undo', '--to', '3', '--conversation-only', '--yes');
    assert.match(toCommand.stdout, /conversation: the agents forget everything after it, 1 prompt included\n/, 'inside the first prompt: the second only');
  });

  it('rewinds the files only, or the conversation only', async () => {
    await twoPrompts();
    assert.equal((await crow('undo', '--to', '4', '--files-only', '--yes')).code, 0);
    assert.equal(file('a.txt'), 'v2\n');
    assert.equal(file('b.txt'), undefined);
    llm.enqueue('anthropic', say('Still here.'));
    await crow('run', 'Next', '--continue');
    assert.match(lastRequest(), /Second prompt/, 'the conversation is kept');

    const conversation = await crow('undo', '--to', '4', '--conversation-only', '--yes');
    assert.equal(conversation.code, 0, conversation.stderr);
    assert.equal(file('a.txt'), 'v2\n', 'the files are left as they are');
    llm.enqueue('anthropic', say('Back.'));
    await crow('run', 'Again', '--continue');
    assert.doesNotMatch(lastRequest(), /Second prompt|Next/);
    assert.match(lastRequest(), /First done/);
  });

  it('undoes one prompt further back each time, instead of the same one again', async () => {
    await twoPrompts();
    assert.equal((await crow('undo', '--yes')).code, 0);
    assert.equal(file('a.txt'), 'v2\n');
    assert.equal(file('b.txt'), undefined);
    assert.equal((await crow('undo', '--yes')).code, 0);
    assert.equal(file('a.txt'), undefined, 'the first prompt created it');
    const third = await crow('undo', '--yes');
    assert.equal(third.code, 1);
    assert.match(third.stderr, /every prompt recorded here has been undone already/);
    assert.equal(file('mine.txt'), 'mine\n');
  });

  it('forks a session at a checkpoint: the new one holds the conversation until then, the old one is unchanged', async () => {
    const id = await twoPrompts();
    const forked = await crow('sessions', 'fork', id, '--at', '4');
    assert.equal(forked.code, 0, forked.stderr);
    const fork = forked.stdout.trim();
    assert.notEqual(fork, id);
    assert.match(forked.stderr, /Go on with: crow run --session /);
    assert.equal(file('a.txt'), 'v3\n', 'a fork leaves the files alone');

    llm.enqueue('anthropic', say('On the branch.'));
    assert.equal((await crow('run', 'Branch prompt', '--session', fork)).code, 0);
    assert.match(lastRequest(), /First done/);
    assert.doesNotMatch(lastRequest(), /Second prompt/);
    const shown = await crow('sessions', 'show', fork);
    assert.match(shown.stdout, /› First prompt[\s\S]*› Branch prompt/);
    assert.doesNotMatch(shown.stdout, /Second prompt/);
    const original = await crow('sessions', 'show', id);
    assert.match(original.stdout, /› Second prompt/);
    assert.match((await crow('sessions', 'list')).stdout, /\(fork at #4\)/);
  });

  it('says what is wrong with a checkpoint that does not exist or flags that do not go together', async () => {
    await twoPrompts();
    const missing = await crow('undo', '--to', '9', '--yes');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No checkpoint #9: this session has #1 to #6/);
    const both = await crow('undo', '--to', '2', '--files-only', '--conversation-only');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--files-only or --conversation-only, not both/);
    const lonely = await crow('undo', '--files-only');
    assert.equal(lonely.code, 2);
    assert.match(lonely.stderr, /goes with --to N/);
    const noAt = await crow('sessions', 'fork', 'abc');
    assert.equal(noAt.code, 2);
    assert.match(noAt.stderr, /needs --at N/);
  });
});
