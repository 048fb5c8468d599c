import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { binarySuite } from '../support/binary-suite';
import { startCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** What crow reads on a piped stdin, through the binary: the prompt, and an answer to its question. */
describe('crow and a piped stdin', () => {
  const suite = binarySuite('stdin');
  const env = (): NodeJS.ProcessEnv => isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl });

  /** The binary with `input` written to its stdin, which then ends. */
  async function crowWith(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const crow = startCrow(args, env(), suite.root);
    crow.child.stdin.end(input);
    const { code } = await crow.exited;
    return { code, stdout: crow.stdout(), stderr: crow.stderr() };
  }

  /** The text of the last user message the model was sent. */
  function lastPrompt(): string {
    const messages = suite.llm.requestsFor('anthropic').at(-1)!.body.messages as { role: string; content: string | { type: string; text?: string }[] }[];
    const content = messages.filter((message) => message.role === 'user').at(-1)!.content;
    return typeof content === 'string' ? content : content.map((block) => block.text ?? '').join('');
  }

  it('takes the prompt from a pipe when none is given, and from "-", whole and with its line breaks', async () => {
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Piped.' }] }, { blocks: [{ type: 'text', text: 'Dashed.' }] });
    const piped = await crowWith(['run', '--no-undo', '--provider', 'anthropic'], 'Summarise\nthese two lines\n');
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout, 'Piped.\n');
    assert.match(lastPrompt(), /Summarise\nthese two lines/);
    const dashed = await crowWith(['run', '-', '--no-undo', '--provider', 'anthropic'], 'From the dash');
    assert.equal(dashed.code, 0, dashed.stderr);
    assert.equal(dashed.stdout, 'Dashed.\n');
    assert.match(lastPrompt(), /From the dash/);
  });

  it('an empty pipe is no prompt: exit 2 with the usage line, and the model is never called', async () => {
    const empty = await crowWith(['run', '--no-undo', '--provider', 'anthropic'], '');
    assert.equal(empty.code, 2, empty.stderr);
    assert.match(empty.stderr, /crow run needs a prompt: crow run "Fix the failing test"/);
    assert.equal(suite.llm.requestsFor('anthropic').length, 0);
  });

  it('crow undo reads its answer from a pipe: "y" restores, end of input restores nothing and says how (exit 2)', async () => {
    execFileSync('git', ['init', '-q'], { cwd: suite.root });
    writeFileSync(join(suite.root, 'notes.txt'), 'before\n');
    suite.llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'notes.txt', content: 'after\n' } }] },
      { blocks: [{ type: 'text', text: 'Rewrote it.' }] },
    );
    const run = await crowWith(['run', 'Rewrite notes', '--allow', 'write', '--provider', 'anthropic'], '');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(suite.root, 'notes.txt'), 'utf8'), 'after\n');

    const unanswered = await crowWith(['undo'], '');
    assert.equal(unanswered.code, 2, unanswered.stderr);
    assert.match(unanswered.stderr, /no answer came on stdin, so crow cannot ask\. Run it again with --yes/);
    assert.equal(readFileSync(join(suite.root, 'notes.txt'), 'utf8'), 'after\n', 'nothing restored without an answer');

    const answered = await crowWith(['undo'], 'y\n');
    assert.equal(answered.code, 0, answered.stderr);
    assert.match(answered.stderr, /Restore these files\? \[y\/N\]/);
    assert.equal(readFileSync(join(suite.root, 'notes.txt'), 'utf8'), 'before\n');
  });
});
