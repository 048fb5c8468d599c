/**
 * The size guard through the real binaries: on a folder whose snapshot
 * cannot be taken within [undo] track_timeout_ms, commands run anyway, the
 * user is told once (a line from `crow run`, a warning to the ACP client),
 * file edits stay undoable, and `crow undo` says what it cannot put back.
 * A slow git (a shim on PATH that pauses in diff-files) stands in for a
 * huge repository.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow, startAcp } from '../support/crow-binary';
import { userConfigDir } from '../support/doors';
import { isolatedEnv } from '../support/isolated-env';

const text = (value: string): ScriptedReply => ({ blocks: [{ type: 'text', text: value }] });
const call = (name: string, args: unknown): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });
const NOTICE = /Undo: this folder is too large to record in 300 ms, so what commands change in this prompt cannot be undone; file edits still can/g;

describe('undo on a folder too large to record in time', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let base: string;
  let root: string;
  let home: string;
  let env: Record<string, string>;

  before(async () => {
    llm = await FakeLlmServer.start();
  });
  after(() => llm.close());

  beforeEach(() => {
    llm.reset();
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-size-guard-')));
    root = join(base, 'ws');
    home = join(base, 'home');
    mkdirSync(root);
    writeFileSync(join(root, 'notes.md'), 'v1\n');
    mkdirSync(userConfigDir(home), { recursive: true });
    writeFileSync(join(userConfigDir(home), 'config.toml'), '[undo]\ntrack_timeout_ms = 300\n');
    const bin = join(base, 'bin');
    mkdirSync(bin);
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\ncase " $* " in *" diff-files "*) sleep 3 </dev/null >/dev/null 2>&1;; esac\nexec ${realGit} "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    env = { PATH: `${bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl };
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('crow run: commands run, the user is told once, and crow undo puts back the file edit and says what it cannot', async () => {
    llm.enqueue(
      'anthropic',
      call('write_file', { path: 'notes.md', content: 'v2\n' }),
      call('bash', { command: 'echo made > made.txt' }),
      call('bash', { command: 'echo more >> made.txt' }),
      text('Done.'),
    );
    const run = await runCrow(['run', 'Change things', '--allow', 'all'], isolatedEnv(home, env), root);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((run.stderr.match(NOTICE) ?? []).length, 1, run.stderr);
    assert.equal(readFileSync(join(root, 'made.txt'), 'utf8'), 'made\nmore\n', 'the commands ran');

    const undo = await runCrow(['undo', '--yes'], isolatedEnv(home, env), root);
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), 'v1\n');
    assert.ok(existsSync(join(root, 'made.txt')), 'what the commands made was not recorded, so it stays');
    assert.match(undo.stderr, /cannot be undone: commands were not recorded: this folder is too large to record in 300 ms/);
  });

  it('crow acp: the client is warned once, and the prompt ends normally', async () => {
    llm.enqueue('anthropic', call('bash', { command: 'echo made > made.txt' }), call('bash', { command: 'true' }), text('Done.'));
    const agent = startAcp(root, home, env, { permission: () => 'allow_once' });
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(root);
      const answer = await agent.client.prompt(sessionId, 'Make a file');
      assert.equal(answer.stopReason, 'end_turn');
      const told = `${agent.client.thought(sessionId)}${agent.client.said(sessionId)}`;
      assert.equal((told.match(NOTICE) ?? []).length, 1, told);
      assert.ok(existsSync(join(root, 'made.txt')));
    } finally {
      await agent.stop();
    }
  });
});
