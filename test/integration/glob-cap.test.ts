import assert from 'node:assert/strict';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { runCrow, startAcp } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** Files the fake rg lists before it pauses, far past the glob tool's cap of 200. */
const LISTED = 5_000;
/** How long the fake rg pauses after listing, as a walk of a big tree still going. */
const PAUSE_SECONDS = 20;

/**
 * The glob tool on a tree too big to walk while the model waits, through
 * the binary's two doors. The rg it runs (CROW_RG_PATH) is a stand-in that
 * lists LISTED matching paths, as rg does (NUL-ended, under the folder it
 * was given last), then goes on "walking" for PAUSE_SECONDS and leaves a
 * mark when it gets to the end. The tool must answer from the first 200
 * matches, say that more match, and stop rg before that end.
 */
describe('glob stops at its cap (the binary)', function () {
  this.timeout(PAUSE_SECONDS * 1_000 + 30_000);
  const suite = binarySuite('glob-cap');
  const finished = () => join(suite.base, 'rg-walked-to-the-end');
  const env = () => {
    const rg = join(suite.base, 'rg');
    writeFileSync(
      rg,
      [
        '#!/bin/sh',
        'for folder; do :; done',
        `i=0; while [ $i -lt ${LISTED} ]; do i=$((i+1)); printf '%s/f%s.ts\\0' "$folder" "$i"; done`,
        `sleep ${PAUSE_SECONDS}`,
        `touch '${finished()}'`,
      ].join('\n'),
    );
    chmodSync(rg, 0o755);
    for (let i = 1; i <= 300; i++) writeFileSync(join(suite.root, `f${i}.ts`), '');
    return { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_RG_PATH: rg };
  };
  const callGlob = () =>
    suite.llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'glob', arguments: { pattern: '*.ts' } }] },
      { blocks: [{ type: 'text', text: 'Found them.' }] },
    );
  const checkCapped = (output: string) => {
    const rows = output.split('\n');
    assert.equal(rows.filter((row) => /^f\d+\.ts$/.test(row)).length, 200, output.slice(0, 400));
    assert.match(rows.at(-1) ?? '', /^\[Stopped at 200 files; more match\. These are the first found/);
    assert.equal(existsSync(finished()), false, 'rg was stopped before it walked to the end');
  };

  it('crow run: the tool answers from the first 200 matches and stops rg', async () => {
    callGlob();
    const run = await runCrow(['run', 'Find the TypeScript files', '--json', '--provider', 'anthropic'], isolatedEnv(suite.home, env()), suite.root);
    assert.equal(run.code, 0, run.stderr);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; tool?: string; result?: { status: string; output: string } });
    const end = events.find((event) => event.type === 'tool_call_end' && event.tool === 'glob');
    assert.equal(end?.result?.status, 'success', run.stdout.slice(0, 2_000));
    checkCapped(end!.result!.output);
  });

  it('crow acp: the same through the ACP door', async () => {
    callGlob();
    const agent = startAcp(suite.root, suite.home, env());
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(suite.root);
      assert.equal((await agent.client.prompt(sessionId, 'Find the TypeScript files')).stopReason, 'end_turn');
      const text = agent.client
        .updates(sessionId, 'tool_call_update')
        .flatMap((update) => update.content ?? [])
        .flatMap((content) => (content.type === 'content' && content.content.type === 'text' ? [content.content.text] : []));
      const output = text.find((one) => one.includes('Stopped at'));
      assert.ok(output, JSON.stringify(text).slice(0, 1_000));
      checkCapped(output.replace(/^```\w*\n|\n```$/g, ''));
    } finally {
      assert.equal(await agent.stop(), 0, agent.stderr());
    }
  });
});
