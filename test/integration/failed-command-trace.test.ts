/**
 * A command that exits non-zero worked as a call (its output goes to the
 * model) but failed as work: every trace a person reads says so. Through
 * the binary: `crow run`, then the session's trace as span records, as
 * OTLP/JSON and as the printed tree.
 */
import assert from 'node:assert/strict';
import { runCrow } from '../support/crow-binary';
import { binarySuite } from '../support/binary-suite';
import { isolatedEnv } from '../support/isolated-env';

describe('a failed command in the trace (the binary)', function () {
  this.timeout(60_000);
  const suite = binarySuite('failed-command');

  it('a command that exits 3 is an error span, the same in every export; one that exits 0 is not', async () => {
    suite.llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo fine' } }] },
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo broken; exit 3' } }] },
      { blocks: [{ type: 'text', text: 'The second one failed.' }] },
    );
    const env = isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl });
    const run = await runCrow(['run', 'Run two commands', '--allow', 'all', '--no-undo', '--json'], env, suite.root);
    assert.equal(run.code, 0, run.stderr);
    const sessionId = String(JSON.parse(run.stdout.trim().split('\n').at(-1)!).sessionId);

    const records = await runCrow(['trace', sessionId, '--json'], env, suite.root);
    assert.equal(records.code, 0, records.stderr);
    const spans = JSON.parse(records.stdout) as { name: string; status: string; attributes: Record<string, unknown> }[];
    const bash = spans.filter((span) => span.name === 'execute_tool bash');
    assert.deepEqual(
      bash.map((span) => [span.status, span.attributes['crow.tool.status']]),
      [
        ['ok', 'success'],
        ['error', 'failed'],
      ],
      records.stdout.slice(0, 2000),
    );
    assert.equal(bash[1]!.attributes['crow.tool.failed'], 'exit code 3');

    const otlp = JSON.parse((await runCrow(['trace', sessionId, '--otlp-json'], env, suite.root)).stdout);
    const exported = otlp.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans)).filter((s: any) => s.name === 'execute_tool bash');
    assert.deepEqual(
      exported.map((s: any) => s.status.code),
      [1, 2],
      'STATUS_CODE_OK, then STATUS_CODE_ERROR',
    );

    const tree = (await runCrow(['trace', sessionId], env, suite.root)).stdout;
    assert.match(tree, /execute_tool bash[^\n]*(error|✗)[^\n]*exit code 3/i, tree);
  });
});
