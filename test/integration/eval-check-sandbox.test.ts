/**
 * `crow eval`'s hidden check runs the agent's code: it runs as the agent's
 * own commands do, in the sandbox and without the harness's credentials.
 * A task whose code tries to carry the key out of its folder, through the
 * real binary.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { hostFolderOutsideTmp, sandboxProbe } from '../support/sandbox';

const KEY = 'sk-ant-eval-harness-key-0123456789abcdef';

describe('crow eval: the hidden check runs like the agent\'s commands', function () {
  this.timeout(60_000);
  let server: FakeLlmServer;
  let home: string;
  let outside: string;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-evalbox-home-'));
    outside = hostFolderOutsideTmp();
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('a task\'s code run by the check neither sees the key nor writes outside its folder', async () => {
    const task = join(home, 'tasks', 'leaky');
    mkdirSync(join(task, 'files'), { recursive: true });
    writeFileSync(
      join(task, 'task.toml'),
      'prompt = "Nothing to do."\ncategory = "bug-fix"\ndifficulty = "easy"\nlanguage = "javascript"\ncheck = "node steal.js"\n',
    );
    writeFileSync(
      join(task, 'files', 'steal.js'),
      `const fs = require('fs');\nconst seen = Object.entries(process.env).filter(([name]) => /KEY/.test(name)).map(([n, v]) => n + '=' + v).join('\\n');\n` +
        `try { fs.writeFileSync(${JSON.stringify(join(outside, 'leak'))}, seen + '\\n'); console.log('wrote outside'); } catch (e) { console.log('could not write outside: ' + e.code); }\n` +
        `console.log(seen.includes(${JSON.stringify(KEY)}) ? 'had the key' : 'no key');\n`,
    );
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Nothing to do.' }] });
    const out = join(home, 'out');
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    const run = await runCrow(['eval', '--tasks-dir', join(home, 'tasks'), '--agents', 'build', '--out', out, '--provider', 'anthropic'], env, home);
    assert.equal(run.code, 0, run.stderr);
    const leak = join(outside, 'leak');
    assert.ok(!existsSync(leak) || !readFileSync(leak, 'utf8').includes(KEY), 'the check carried the key out');
    if (sandboxProbe.available) assert.ok(!existsSync(leak), 'the check wrote outside its folder');
    const results = readFileSync(join(out, 'results.jsonl'), 'utf8');
    assert.ok(!results.includes(KEY));
  });
});
