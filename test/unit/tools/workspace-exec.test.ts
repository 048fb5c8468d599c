import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { commandEnvironment, isSecretVariable } from '../../../src/tools/node-exec';
import type { ExecOptions } from '../../../src/tools/workspace';
import { tempWorkspace } from './temp-workspace';
import { groupRunning } from '../../support/process-groups';
import { assertPromptly } from '../../support/promptly';

/** Whether a process still runs: gone or a zombie both count as dead. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}


describe('NodeWorkspace.exec', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const options = (extra: Partial<ExecOptions> = {}): ExecOptions => ({
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    ...extra,
  });

  beforeEach(() => {
    ws = tempWorkspace({ 'sub/marker.txt': 'here' }, { maxExecOutputChars: 1_000, killGraceMs: 300 });
  });
  afterEach(() => ws.remove());

  it('reports exit codes and interleaves stdout with stderr', async () => {
    const ok = await ws.workspace.exec('echo out; echo err >&2; echo again', options());
    assert.equal(ok.exitCode, 0);
    assert.equal(ok.output, 'out\nerr\nagain\n');
    assert.deepEqual([ok.timedOut, ok.aborted, ok.omittedBytes], [false, false, 0]);
    assert.equal((await ws.workspace.exec('exit 3', options())).exitCode, 3);
  });

  it('runs in the root, or in a workspace-relative cwd', async () => {
    assert.equal((await ws.workspace.exec('pwd', options())).output.trim(), ws.root);
    const inSub = await ws.workspace.exec('cat marker.txt', options({ cwd: 'sub' }));
    assert.equal(inSub.output, 'here');
    await assert.rejects(ws.workspace.exec('pwd', options({ cwd: 'sub/marker.txt' })), /not a folder/);
  });

  it('runs with bash and closed stdin', async () => {
    const result = await ws.workspace.exec('echo "$BASH_VERSION" | grep -c . ; cat; echo done', options());
    assert.equal(result.output, '1\ndone\n');
  });

  it('caps the output, keeping head and tail and counting omitted bytes', async () => {
    const result = await ws.workspace.exec(
      "echo START; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END",
      options(),
    );
    assert.ok(result.output.startsWith('START\nxxx'));
    assert.ok(result.output.endsWith('xxx\nEND\n'));
    assert.equal(result.omittedBytes, 'START\n'.length + 100_000 + 1 + 'END\n'.length - 1_000);
    assert.match(result.output, new RegExp(`\\[… ${result.omittedBytes} bytes of output omitted …\\]`));
    assert.ok(result.output.length < 1_100);
  });

  it('streams chunks to onOutput as they arrive', async () => {
    const chunks: string[] = [];
    // The command prints its second line only once the first has reached onOutput: no race with a sleep on a loaded machine.
    const onOutput = (chunk: string): void => {
      chunks.push(chunk);
      if (chunks.length === 1) fs.writeFileSync(`${ws.root}/go`, '');
    };
    await ws.workspace.exec('echo one; until [ -e go ]; do sleep 0.01; done; echo two', options({ onOutput }));
    assert.equal(chunks.join(''), 'one\ntwo\n');
    assert.deepEqual(chunks, ['one\n', 'two\n']);
  });

  it('kills a command that times out', async () => {
    const started = Date.now();
    const result = await ws.workspace.exec('echo begun; sleep 30', options({ timeoutMs: 200 }));
    assert.equal(result.timedOut, true);
    assert.equal(result.exitCode, null);
    assert.equal(result.output, 'begun\n');
    assertPromptly(started, 'killed the timed-out command');
  });

  it('on abort kills the whole process group and settles promptly', async () => {
    const controller = new AbortController();
    let printed = '';
    let abortedAt = 0;
    const pending = ws.workspace.exec(
      'echo $$; sleep 30 & echo $!; sleep 30; wait',
      options({
        signal: controller.signal,
        onOutput: (chunk) => {
          printed += chunk;
          if (printed.split('\n').length > 2 && abortedAt === 0) {
            abortedAt = Date.now();
            controller.abort();
          }
        },
      }),
    );
    const result = await pending;
    const settledAfter = Date.now() - abortedAt;
    const [shell, background] = printed.trim().split('\n').map(Number) as [number, number];

    assert.equal(result.aborted, true);
    assert.ok(settledAfter < 500, `settled ${settledAfter} ms after abort`);
    assert.equal(running(shell), false, 'the shell is gone');
    assert.equal(running(background), false, 'its background child is gone');
    assert.equal(groupRunning(shell), false, 'nothing of the group runs');
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const controller = new AbortController();
    let printed = '';
    const result = await ws.workspace.exec(
      "trap '' TERM; sleep 30 & echo $!; wait",
      options({
        signal: controller.signal,
        onOutput: (chunk) => {
          printed += chunk;
          controller.abort();
        },
      }),
    );
    assert.equal(result.aborted, true);
    assert.equal(running(Number(printed.trim())), false);
  });

  it('does not start a command when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await ws.workspace.exec('touch started.txt', options({ signal: controller.signal }));
    assert.equal(result.aborted, true);
    assert.equal(fs.existsSync(`${ws.root}/started.txt`), false);
  });

  it('keeps our secrets out of the environment', async () => {
    const secrets = { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'b', CROW_API_KEY: 'c', CROW_GITHUB_TOKEN: 'd', CROW_SECRET: 'e' };
    Object.assign(process.env, secrets, { CROW_HOME: '/somewhere' });
    try {
      const result = await ws.workspace.exec("env | grep -E '^(ANTHROPIC_|OPENAI_|CROW_|PATH=)'", options());
      for (const name of Object.keys(secrets)) assert.ok(!result.output.includes(`${name}=`), `${name} leaked`);
      assert.ok(result.output.includes('CROW_HOME=/somewhere'));
      assert.ok(result.output.includes('PATH='));
    } finally {
      for (const name of [...Object.keys(secrets), 'CROW_HOME']) delete process.env[name];
    }
  });

  it('names secret variables with a small reusable filter', () => {
    assert.deepEqual(
      ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'CROW_KEY', 'CROW_X_TOKEN', 'crow_secret_file', 'CROW_HOME', 'GITHUB_TOKEN'].map(
        isSecretVariable,
      ),
      [true, true, true, true, true, false, true],
    );
    assert.deepEqual(commandEnvironment({ CROW_TOKEN: 'x', HOME: '/h' }), { HOME: '/h' });
  });
});
