/**
 * /speckit.* through the real binaries: crow acp advertises the commands and
 * /speckit.tasks turns tasks.md into a plan the client sees; crow run takes
 * a /speckit command as its prompt.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow, startAcp } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { PLAN, SPEC, TASKS, writes } from '../support/speckit';

const FEATURE = 'specs/001-photo-albums';

describe('/speckit.* through crow acp and crow run', function () {
  this.timeout(30_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;
  let keys: Record<string, string>;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-speckit-home-')));
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-speckit-ws-')));
    keys = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl };
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it('crow acp advertises the ten commands with hints, and /speckit.tasks sends the tasks as a plan', async () => {
    mkdirSync(join(root, FEATURE), { recursive: true });
    mkdirSync(join(root, '.specify'), { recursive: true });
    writeFileSync(join(root, '.specify/feature.json'), `{"feature_directory": "${FEATURE}"}`);
    writeFileSync(join(root, FEATURE, 'spec.md'), SPEC);
    writeFileSync(join(root, FEATURE, 'plan.md'), PLAN);
    llm.enqueue('anthropic', ...writes(`${FEATURE}/tasks.md`, TASKS));
    const agent = startAcp(root, home, keys, { permission: () => 'allow_once' });
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(root);
      await agent.client.until(() => agent.client.updates(sessionId, 'available_commands_update').length > 0);
      const [advertised] = agent.client.updates(sessionId, 'available_commands_update');
      const speckit = advertised!.availableCommands.filter((command) => command.name.startsWith('speckit.'));
      assert.deepEqual(speckit.map((command) => command.name).sort(), [
        'speckit.analyze',
        'speckit.checklist',
        'speckit.clarify',
        'speckit.constitution',
        'speckit.converge',
        'speckit.implement',
        'speckit.plan',
        'speckit.specify',
        'speckit.tasks',
        'speckit.taskstoissues',
      ]);
      assert.ok(speckit.every((command) => command.description.length > 10 && command.input !== undefined));
      assert.ok(advertised!.availableCommands.some((command) => command.name === 'undo'));

      const answer = await agent.client.prompt(sessionId, '/speckit.tasks');
      assert.equal(answer.stopReason, 'end_turn');
      assert.equal(readFileSync(join(root, FEATURE, 'tasks.md'), 'utf8'), TASKS);
      const plan = agent.client.updates(sessionId, 'plan').at(-1);
      assert.ok(plan, 'a plan update reached the client');
      assert.deepEqual(
        plan.entries.map((entry) => entry.status),
        plan.entries.map(() => 'pending'),
      );
      assert.match(plan.entries[0]!.content, /T001/);
      assert.match(agent.client.said(sessionId) + agent.client.thought(sessionId), /specs\/001-photo-albums/, 'the command says which feature it worked on');
    } finally {
      await agent.stop();
    }
  });

  it('crow run takes a /speckit command as its prompt and writes the spec where Spec Kit would', async () => {
    llm.enqueue('anthropic', ...writes('specs/001-photo-albums-grouped-date/spec.md', SPEC));
    const run = await runCrow(['run', '/speckit.specify Photo albums grouped by date', '--allow', 'write', '--cwd', root], isolatedEnv(home, keys), root);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(root, 'specs/001-photo-albums-grouped-date/spec.md'), 'utf8'), SPEC);
    assert.match(run.stdout + run.stderr, /specs\/001-photo-albums-grouped-date/);
  });
});
