/**
 * Seed 002's Modify and runtime approval requests in `crow run`, through the
 * built binary in a real pseudo-terminal (tmux), against the fake LLM
 * server: the person edits a call's arguments in their $EDITOR or on one
 * line, a bad edit is shown and offered again, and an agent's own
 * request_approval is asked like any approval (and refused where nobody
 * can be asked).
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { CROW, runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { HAVE_TMUX, Terminal } from '../support/terminal';

const call = (name: string, args: unknown) => ({ blocks: [{ type: 'tool_call' as const, name, arguments: args }] });
const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

describe('approvals: Modify and request_approval in crow run', function () {
  this.timeout(60_000);
  let server: FakeLlmServer;
  let workspace: string;
  let home: string;
  let terminal: Terminal | undefined;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    workspace = mkdtempSync(join(tmpdir(), 'crow-modify-ws-'));
    home = mkdtempSync(join(tmpdir(), 'crow-modify-home-'));
  });
  afterEach(() => {
    terminal?.close();
    terminal = undefined;
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}) =>
    isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, LANG: 'C.UTF-8', ...extra });
  const crow = (extra: Record<string, string>, ...args: string[]): Terminal => {
    terminal = Terminal.start([process.execPath, CROW, ...args], { cwd: workspace, env: env(extra) });
    return terminal;
  };
  /** A stand-in for the person's editor: a script run on the arguments file, as $EDITOR is. */
  const editor = (script: string): string => {
    const file = join(home, 'editor.sh');
    writeFileSync(file, `#!/bin/sh\n${script}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  const toModel = (request: number) => JSON.stringify(server.requestsFor('anthropic')[request]!.body.messages);

  (HAVE_TMUX ? it : it.skip)('"m" opens the arguments in $EDITOR; the call runs as edited and the model is told', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'first.txt', content: 'hello\n' }), say('Written.'));
    const tty = crow({ EDITOR: editor(`sed -i 's/first\\.txt/second.txt/' "$1"`) }, 'run', 'Write a file', '--provider', 'anthropic');
    const asked = await tty.waitFor(/\[m\] modify/);
    assert.match(asked, /\? builder wants to change files: Write first\.txt/);
    tty.typeLine('m');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.match(tty.screen(), /allowed with your changes/);
    assert.ok(!existsSync(join(workspace, 'first.txt')), 'the model\'s path was not written');
    assert.equal(readFileSync(join(workspace, 'second.txt'), 'utf8'), 'hello\n');
    assert.match(toModel(1), /The user edited this call's arguments before allowing it\. It ran with: \{\\"path\\":\\"second\.txt\\",\\"content\\":\\"hello\\\\n\\"\}/);
  });

  (HAVE_TMUX ? it : it.skip)('an edit that does not fit is shown with what is wrong and reopened as it was, not lost', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'a.txt', content: 'a\n' }), say('Done.'));
    const seen = join(home, 'seen.txt');
    // First time: breaks the JSON. Second time: records what it was given, then writes a good edit.
    const script = editor(
      `if [ ! -f "${seen}" ]; then printf '{"path": "b.txt", "content": ' > "$1"; touch "${seen}"; ` +
        `else cp "$1" "${seen}"; printf '{"path": "b.txt", "content": "b\\\\n"}' > "$1"; fi`,
    );
    const tty = crow({ EDITOR: script }, 'run', 'Write a file', '--provider', 'anthropic');
    await tty.waitFor(/\[m\] modify/);
    tty.typeLine('m');
    await tty.waitFor(/✗ not JSON[\s\S]*\[e\] edit again/);
    tty.typeLine('e');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.equal(readFileSync(seen, 'utf8'), '{"path": "b.txt", "content": ', 'the editor reopened the broken edit, not the original');
    assert.equal(readFileSync(join(workspace, 'b.txt'), 'utf8'), 'b\n');
    assert.ok(!existsSync(join(workspace, 'a.txt')));
  });

  (HAVE_TMUX ? it : it.skip)('an editor that returns without a change (one that does not wait) does not answer for the person', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'kept-out.txt', content: 'x\n' }), say('Not written.'));
    const tty = crow({ EDITOR: 'true' }, 'run', 'Write a file', '--provider', 'anthropic');
    await tty.waitFor(/\[m\] modify/);
    tty.typeLine('m');
    await tty.waitFor(/The arguments were not changed\.\n\s+\[y\] allow them as they are · \[e\] edit again · \[n\] no/);
    tty.typeLine('n');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.match(tty.screen(), /denied/);
    assert.ok(!existsSync(join(workspace, 'kept-out.txt')));
  });

  (HAVE_TMUX ? it : it.skip)('without an editor, the changed fields are typed as one line of JSON; a bad line is shown back and asked again', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'one.txt', content: 'text\n' }), say('Wrote it.'));
    const tty = crow({}, 'run', 'Write something', '--provider', 'anthropic');
    await tty.waitFor(/\[m\] modify/);
    tty.typeLine('m');
    await tty.waitFor(/now: \{"path":"one\.txt","content":"text\\n"\}[\s\S]*\n\s+>$/);
    tty.typeLine('{"path": 5}');
    const bad = await tty.waitFor(/✗ does not fit the tool's parameters: path: [^\n]*\n\s+you typed: \{"path": 5\}/);
    assert.match(bad, /\n\s+>$/, 'asked again');
    tty.typeLine('{"path": "two.txt"}');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.ok(!existsSync(join(workspace, 'one.txt')));
    assert.equal(readFileSync(join(workspace, 'two.txt'), 'utf8'), 'text\n', 'the fields not typed stay as they were');
    assert.match(toModel(1), /It ran with: \{\\"path\\":\\"two\.txt\\",\\"content\\":\\"text\\\\n\\"\}/);
  });

  (HAVE_TMUX ? it : it.skip)('request_approval asks the person, with its details, and the model reads the decision', async () => {
    server.enqueue(
      'anthropic',
      call('request_approval', { question: 'Delete the build folder?', details: 'It holds 2 GB of old artifacts.\nIt can be rebuilt.' }),
      say('Deleting it.'),
    );
    const tty = crow({}, 'run', 'Clean up', '--provider', 'anthropic');
    const asked = await tty.waitFor(/\[y\] yes · \[m\] modify · \[n\] no/);
    assert.match(asked, /\? builder asks for your approval: Delete the build folder\?\n\s+It holds 2 GB of old artifacts\.\n\s+It can be rebuilt\./);
    assert.doesNotMatch(asked, /always/, 'an agent\'s question has no "always"');
    tty.typeLine('y');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.match(toModel(1), /Approved: the person said yes/);
  });

  (HAVE_TMUX ? it : it.skip)('request_approval: "n" is told to the model as a refusal', async () => {
    server.enqueue('anthropic', call('request_approval', { question: 'Force-push to main?' }), say('I will not.'));
    const tty = crow({}, 'run', 'Ship it', '--provider', 'anthropic');
    await tty.waitFor(/asks for your approval: Force-push to main\?/);
    tty.typeLine('n');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.match(toModel(1), /Denied: the person said no/);
  });

  (HAVE_TMUX ? it : it.skip)("request_approval waits as long as the agent's approval_timeout says, then the model is told nobody answered", async () => {
    mkdirSync(join(home, 'config', 'crow-agent', 'agents', 'base'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'agents', 'base', 'builder.md'), '---\ndescription: Builds, asking first.\nrole: primary\napproval_timeout: 1\n---\n');
    server.enqueue('anthropic', call('request_approval', { question: 'Rewrite the history of main?' }), say('I left it alone.'));
    const tty = crow({}, 'run', 'Tidy up', '--provider', 'anthropic');
    await tty.waitFor(/asks for your approval: Rewrite the history of main\?/);
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.match(toModel(1), /No answer within 1 s: treat it as refused\. Do not take the action\./);
  });

  it('request_approval is refused cleanly where nobody can be asked (a piped run), and the model is told why', async () => {
    server.enqueue('anthropic', call('request_approval', { question: 'Drop the database?' }), say('Skipped it.'));
    const run = await runCrow(['run', 'Reset everything', '--provider', 'anthropic'], env(), workspace);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), 'Skipped it.');
    assert.match(toModel(1), /Nobody can be asked for approval in this run \(it is not interactive\)\. Do not take the action/);
    assert.doesNotMatch(run.stderr, /at .*\.js:\d+/, 'no stack trace');
  });
});
