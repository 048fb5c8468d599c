/**
 * Output the model gets only part of: a tool's progress on the way, the
 * whole kept in the session's folder, and read_file reading it back in
 * ranges, never anything else outside the workspace.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Redactor } from '../../../src/telemetry/redact';
import { bashTool } from '../../../src/tools/builtin/bash';
import { readFileTool } from '../../../src/tools/builtin/read-file';
import { defineTool } from '../../../src/tools/define-tool';
import { PermissionGate } from '../../../src/tools/permissions';
import { SavedOutputs } from '../../../src/tools/saved-outputs';
import type { ToolContext, ToolProgress, ToolStep } from '../../../src/tools/tool';
import { tempDir, tempWorkspace, toolContext } from './temp-workspace';

const SECRET = 'ghp_thisIsASecretTokenValue0123456789';

/** A ToolProgress that writes down what it is told. */
function recorder(log: string[] = []): ToolProgress & { log: string[]; text: () => string } {
  const chunks: string[] = [];
  return {
    log,
    text: () => chunks.join(''),
    start: () => void log.push('start'),
    output: (chunk) => void chunks.push(chunk),
    step: (step: ToolStep) => void log.push(`step ${step.message}`),
  };
}

/** The path a result's note names. */
function savedPath(output: string): string {
  const path = /is saved at (\/\S+\.txt):/.exec(output)?.[1];
  assert.ok(path, `no saved output named in:\n${output.slice(-400)}`);
  return path;
}

describe('output the model gets only part of', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let data: ReturnType<typeof tempDir>;
  let outputs: SavedOutputs;
  let context: (extra?: Partial<ToolContext>) => ToolContext;

  beforeEach(() => {
    ws = tempWorkspace({ 'notes.txt': 'in the workspace\n' }, { killGraceMs: 200 });
    data = tempDir('crow-session-');
    const redactor = new Redactor({ GITHUB_TOKEN: SECRET });
    outputs = new SavedOutputs(join(data.dir, 'outputs'), (text) => redactor.text(text));
    context = (extra = {}) => toolContext(ws.workspace, undefined, { outputs, ...extra });
  });
  afterEach(() => {
    ws.remove();
    data.remove();
  });

  it('bash streams what the command prints while it runs', async () => {
    const progress = recorder();
    const result = await bashTool.run(JSON.stringify({ command: 'echo one; echo two >&2; echo three' }), context({ progress }));
    assert.equal(result.status, 'success');
    assert.deepEqual(progress.log, ['start']);
    assert.equal(progress.text(), 'one\ntwo\nthree\n');
    assert.equal(result.metadata.extra.savedOutput, undefined, 'nothing was cut, so nothing is saved');
    assert.equal(readdirSync(data.dir).length, 0);
  });

  it('bash saves a clipped output whole; the model reads any range of it with read_file', async () => {
    const result = await bashTool.run(JSON.stringify({ command: 'seq 1 40000' }), context({ progress: recorder() }));
    assert.match(result.output, /bytes of output omitted/);
    const path = savedPath(result.output);
    assert.match(result.output, /\[exit code 0\]\n\[The whole output \(40,000 lines, \d+ KB\) is saved at .*: read_file it with offset and limit to see any part\.\]$/);
    assert.equal(result.metadata.extra.savedOutput, path);
    const lines = readFileSync(path, 'utf8').split('\n');
    assert.equal(lines[19_999], '20000', 'the middle the model did not get is there');
    assert.equal(lines.length, 40_001);

    const range = await readFileTool.run(JSON.stringify({ path, offset: 20_000, limit: 2 }), context());
    assert.equal(range.status, 'success', range.error);
    assert.match(range.output, /^ 20000\t20000\n 20001\t20001\n\n\[truncated: showing lines 20000-20001 of 40000; continue with offset 20002\]$/);
  });

  it('keeps secrets out of the saved output as they are kept out of the history', async () => {
    const leaky = defineTool({
      name: 'leaky',
      description: 'Prints a lot, a secret among it.',
      kind: 'read',
      permission: 'none',
      parameters: z.object({}),
      maxOutputChars: 1_000,
      execute: async () => ({ output: `${'filler\n'.repeat(300)}token=${SECRET}\n${'filler\n'.repeat(300)}` }),
    });
    const result = await leaky.run('{}', context());
    const saved = readFileSync(savedPath(result.output), 'utf8');
    assert.ok(!saved.includes(SECRET));
    assert.match(saved, /token=\[REDACTED\]/);
  });

  it('starts a call\'s progress only once it is approved, and spools nothing of a call that throws', async () => {
    const log: string[] = [];
    const progress = recorder(log);
    const failing = defineTool({
      name: 'failing',
      description: 'Streams, then fails.',
      kind: 'execute',
      permission: 'execute',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        ctx.progress?.output('x'.repeat(3 * 1024 * 1024));
        throw new Error('broke');
      },
    });
    const ask = async (): Promise<'allow_once'> => {
      log.push('asked');
      return 'allow_once';
    };
    const permissions = new PermissionGate({ policy: { rules: { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' }, allowCommands: [] }, ask });
    const result = await failing.run('{}', context({ progress, permissions }));
    assert.equal(result.status, 'error');
    assert.deepEqual(log, ['asked', 'start']);
    assert.deepEqual(readdirSync(data.dir).flatMap((name) => readdirSync(join(data.dir, name))), [], 'no file is left of the spool');
  });

  it('says nothing of a saved output where the session is not stored', async () => {
    const result = await bashTool.run(JSON.stringify({ command: 'seq 1 40000' }), toolContext(ws.workspace, undefined, { progress: recorder() }));
    assert.match(result.output, /bytes of output omitted/);
    assert.doesNotMatch(result.output, /saved at/);
  });

  describe('read_file outside the workspace', () => {
    let saved: string;
    beforeEach(async () => {
      saved = (await outputs.save('bash', 'saved line 1\nsaved line 2\n')).path;
      writeFileSync(join(data.dir, 'meta.json'), '{"secret": true}\n');
    });

    it('reads the session\'s own saved output by the path it was given', async () => {
      const result = await readFileTool.run(JSON.stringify({ path: saved, offset: 2 }), context());
      assert.equal(result.output, '     2\tsaved line 2');
    });

    it('reads nothing else there: not the session\'s other files, not another session\'s outputs, not a link', async () => {
      const name = saved.slice(saved.lastIndexOf('/') + 1);
      const otherSession = join(data.dir, '..', 'another-session', 'outputs');
      mkdirSync(otherSession, { recursive: true });
      writeFileSync(join(otherSession, name), 'another session\n');
      symlinkSync(join(data.dir, 'meta.json'), join(data.dir, 'outputs', 'bash-0123456789ab.txt'));
      for (const path of [
        join(data.dir, 'meta.json'),
        `${data.dir}/outputs/../meta.json`,
        `${saved}/../../meta.json`,
        join(otherSession, name),
        join(data.dir, 'outputs', 'bash-0123456789ab.txt'),
        `${data.dir}/outputs//${name}`,
        '/etc/passwd',
      ]) {
        const result = await readFileTool.run(JSON.stringify({ path }), context());
        assert.equal(result.status, 'error', `${path} was read: ${result.output}`);
        assert.doesNotMatch(result.output, /secret|another session|root:/);
        assert.match(result.error ?? '', /outside the workspace|No saved output/, path);
      }
    });

    it('reads no saved output where the session keeps none (an unstored session)', async () => {
      const result = await readFileTool.run(JSON.stringify({ path: saved }), toolContext(ws.workspace));
      assert.equal(result.status, 'error');
      assert.match(result.error ?? '', /outside the workspace/);
    });
  });
});
