import assert from 'node:assert/strict';
import { bashTool } from '../../../src/tools/builtin/bash';
import { tempWorkspace, toolContext } from './temp-workspace';
import { assertPromptly } from '../../support/promptly';

describe('bash', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const run = (args: unknown, signal?: AbortSignal) => bashTool.run(JSON.stringify(args), toolContext(ws.workspace, signal));

  beforeEach(() => {
    ws = tempWorkspace({ 'sub/hello.txt': 'hi' }, { killGraceMs: 200 });
  });
  afterEach(() => ws.remove());

  it('returns the combined output and the exit code', async () => {
    const result = await run({ command: 'echo out; echo err >&2' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, 'out\nerr\n[exit code 0]');
    assert.equal(result.metadata.extra.exitCode, 0);
  });

  it('keeps a non-zero exit a success the model can read', async () => {
    const result = await run({ command: 'printf nope; exit 4' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, 'nope\n[exit code 4]');
    assert.equal(result.metadata.extra.exitCode, 4);
  });

  it('runs in a workspace-relative cwd and refuses one outside', async () => {
    assert.equal((await run({ command: 'cat hello.txt', cwd: 'sub' })).output, 'hi\n[exit code 0]');
    const outside = await run({ command: 'pwd', cwd: '../..' });
    assert.equal(outside.status, 'error');
    assert.match(outside.error ?? '', /must stay inside the workspace root/);
  });

  it('turns a timeout into an error that shows the output so far', async () => {
    const started = Date.now();
    const result = await run({ command: 'echo started; sleep 20', timeout_ms: 150 });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /^The command timed out after 0\.15s and was killed/);
    assert.equal(result.output, 'started\n[killed: timed out after 0.15s]');
    assert.equal(result.metadata.extra.timedOut, true);
    assertPromptly(started, 'killed the timed-out command');
  });

  it('is cancelled promptly by the signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const result = await run({ command: 'echo going; sleep 20' }, controller.signal);
    assert.equal(result.status, 'cancelled');
    assert.equal(result.output, 'going\n[killed: cancelled]');
    assertPromptly(started, 'killed the cancelled command');
  });

  it('rejects invalid arguments naming the field', async () => {
    const wrongType = await run({ command: ['ls'] });
    assert.match(wrongType.error ?? '', /Invalid arguments for bash: command: .*expected string/);
    const tooLong = await run({ command: 'true', timeout_ms: 700_000 });
    assert.equal(tooLong.status, 'error');
    assert.match(tooLong.error ?? '', /timeout_ms:/);
  });

  it('describes itself as an execute tool', () => {
    assert.equal(bashTool.kind, 'execute');
    assert.equal(bashTool.summarize({ command: 'npm test\nnpm run lint' }), 'npm test …');
    assert.deepEqual(Object.keys((bashTool.inputSchema as { properties: object }).properties), ['command', 'timeout_ms', 'cwd']);
    assert.deepEqual((bashTool.inputSchema as { required: string[] }).required, ['command']);
  });
});
