/**
 * The sandbox probe across starts of crow, through the real binary with a
 * stand-in bwrap that logs each run: a bwrap that works is probed once per
 * machine, not at every start; a changed binary is probed again; one that
 * fails is probed at every start (a failure is never kept); an answer an
 * older probe kept is not taken.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { describeSandboxed, sandboxProbe } from '../support/sandbox';

describeSandboxed('the sandbox probe across starts of crow', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let base: string;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    base = mkdtempSync(join(tmpdir(), 'crow-probe-cache-'));
    mkdirSync(join(base, 'ws'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const bwrap = (): string => join(base, 'bwrap');
  /** A stand-in bwrap that logs its arguments, then runs the real one; `fails`: it cannot create namespaces. */
  const writeBwrap = (fails: boolean, note = ''): void => {
    const real = sandboxProbe.available ? sandboxProbe.bwrap : 'bwrap';
    const then = fails ? 'echo "bwrap: No permissions to create new namespace" >&2; exit 1' : `exec '${real}' "$@"`;
    writeFileSync(bwrap(), `#!/bin/sh\n# ${note}\necho "$*" >> '${join(base, 'runs')}'\n${then}\n`, { mode: 0o755 });
  };
  /** Runs of the stand-in that were the probe (it reads the status of what it sandboxes). */
  const probes = (): number =>
    existsSync(join(base, 'runs')) ? readFileSync(join(base, 'runs'), 'utf8').split('\n').filter((line) => line.includes('-- cat /proc/self/status')).length : 0;
  async function run(): Promise<string> {
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
    const env = isolatedEnv(join(base, 'home'), { CROW_BWRAP_PATH: bwrap(), ANTHROPIC_API_KEY: 'probe-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    const result = await runCrow(['run', 'hi', '--provider', 'anthropic', '--model', 'claude-test', '--no-undo'], env, join(base, 'ws'));
    assert.equal(result.code, 0, result.stderr);
    return result.stderr;
  }

  it('probes a working bwrap once, and again when the binary changes', async () => {
    writeBwrap(false);
    await run();
    assert.equal(probes(), 1);
    await run();
    await run();
    assert.equal(probes(), 1, 'later starts take the kept answer');
    writeBwrap(false, 'a newer bwrap');
    await run();
    assert.equal(probes(), 2, 'a changed binary is probed again');
  });

  it('does not take an answer an older probe kept: it did not check what this one checks', async () => {
    writeBwrap(false);
    await run();
    assert.equal(probes(), 1);
    const file = join(base, 'home/.cache/crow-agent/sandbox-probe.json');
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { key: string; sizedTmp: boolean }[];
    // The shape an earlier crow kept: whether bwrap caps /tmp, nothing about user namespaces.
    writeFileSync(file, JSON.stringify(kept.map(({ key, sizedTmp }) => ({ key, sizedTmp }))));
    await run();
    assert.equal(probes(), 2, 'probed again');
  });

  it('probes a bwrap that fails at every start, and says each time that commands run without the sandbox', async () => {
    writeBwrap(true);
    assert.match(await run(), /Commands run without the sandbox: .*No permissions to create new namespace/);
    const first = probes();
    assert.ok(first >= 1);
    assert.match(await run(), /Commands run without the sandbox/);
    assert.equal(probes(), 2 * first);
  });
});
