import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const DIST = resolve(__dirname, '../../dist');

/** What start-up work may not change in a one-shot run: answer, summary, exit code, the session and its trace. */
describe('crow run, one-shot, as it starts', () => {
  const suite = binarySuite('one-shot');
  const env = (): NodeJS.ProcessEnv =>
    isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, XDG_CACHE_HOME: join(suite.home, 'cache') });
  const crow = (args: string[]) => runCrow(args, env(), suite.root);

  it('answers the same from a first start and from the compiled cache: whole answer, grouped counts, exit 0, session and trace kept', async () => {
    const ids: string[] = [];
    for (let run = 0; run < 2; run++) {
      suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }], usage: { input: 12_345, output: 1_234 } });
      const result = await crow(['run', 'hi', '--no-undo', '--provider', 'anthropic', '--model', 'claude-test']);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, 'Hello.\n', 'the whole answer, flushed before exit');
      assert.match(result.stderr, /context: [\d,]+ of 200,000 tokens/);
      assert.match(result.stderr, /12,345 in · 1,234 out · 0 tool calls/);
      const id = /session ([0-9a-f-]{36})/.exec(result.stderr)?.[1];
      assert.ok(id, result.stderr);
      ids.push(id);
    }
    assert.ok(readdirSync(join(suite.home, 'cache', 'crow-agent', 'compile-cache')).length > 0, 'the second start ran from the cache');
    for (const id of ids) {
      const show = await crow(['sessions', 'show', id]);
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, /hi/);
      assert.match(show.stdout, /Hello\./);
      const trace = await crow(['trace', id, '--json']);
      assert.equal(trace.code, 0, trace.stderr);
      assert.match(trace.stdout, /12345/);
    }
  });

  it('checks the config.toml it finds: an empty one changes nothing, wrong fields (hooks too) stop the run before the model is called, naming each', async () => {
    const config = join(suite.home, 'config', 'crow-agent', 'config.toml');
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, '');
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
    const empty = await crow(['run', 'hi', '--no-undo', '--provider', 'anthropic']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, 'Hello.\n');

    writeFileSync(config, 'max_iterations = "many"\n[permissions]\nwrite = "sometimes"\n[[hooks]]\nevent = "PreToolUse"\ncommand = "true"\n');
    const wrong = await crow(['run', 'hi', '--no-undo', '--provider', 'anthropic']);
    assert.equal(wrong.code, 2, wrong.stderr);
    assert.match(wrong.stderr, /field "max_iterations": Invalid input: expected number, received string/);
    assert.match(wrong.stderr, /field "permissions\.write": Invalid option: expected one of "allow"\|"ask"\|"deny"/);
    assert.match(wrong.stderr, /"PreToolUse" is Claude Code's name for this event: write event = "pre_tool_use"/);
    assert.equal(suite.llm.requestsFor('anthropic').length, 1, 'only the first run called the model');
  });

  it('says why and exits 1 when the session cannot be stored (a data folder that cannot be made), before the model is called', async function () {
    if (process.platform !== 'linux') this.skip();
    const before = suite.llm.requestsFor('anthropic').length;
    // sysfs refuses to make folders, to root too (EPERM, or EROFS where it is mounted read-only).
    const result = await runCrow(['run', 'hi', '--no-undo', '--provider', 'anthropic', '--model', 'claude-test'], { ...env(), XDG_DATA_HOME: '/sys/crow-cannot-store-here' }, suite.root);
    assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stderr, /crow: Sessions are never kept where .*\/sys\/crow-cannot-store-here\/crow-agent\/sessions could not be checked or made: .*Set XDG_DATA_HOME to a folder of your own/);
    assert.equal(suite.llm.requestsFor('anthropic').length, before, 'the model was not called');
  });

  it('ships the bundles Node loads as pure ASCII (read as one-byte strings), with their non-ASCII text intact', async () => {
    for (const name of readdirSync(DIST).filter((file) => file.endsWith('.js'))) {
      const text = readFileSync(join(DIST, name), 'utf8');
      const at = text.search(/[^\x00-\x7f]/);
      assert.equal(at, -1, `${name} holds a non-ASCII character on line ${text.slice(0, at).split('\n').length}`);
    }
    // Text the user sees keeps its characters: the escapes are the bundle's, not the output's.
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Done — déjà vu ✓' }] });
    const result = await crow(['run', 'hi', '--no-undo', '--provider', 'anthropic', '--model', 'claude-test']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Done — déjà vu ✓\n');
    assert.match(result.stderr, /◔ builder's context/);
  });
});
