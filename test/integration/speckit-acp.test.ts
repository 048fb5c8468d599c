/**
 * Spec Kit's own extensions through `crow acp` (issue 44), driven by the
 * SDK's client in a project laid out as `specify init --integration claude`
 * with a preset: the client is told which version of a command ran; a
 * checklist gate the person declines ends the turn (their choice, no
 * error), and the [P] note reaches the client as the agent's words.
 */
import assert from 'node:assert/strict';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { startAcp } from '../support/crow-binary';
import { PLAN, SPEC } from '../support/speckit';
import { installPreset } from '../support/speckit-kit';
import { type SpeckitRepo, speckitRepo, text, toolCall } from '../support/speckit-repo';

const FEATURE = 'specs/001-notes';
const complete = (summary: string): ScriptedReply => ({ blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary } }] });

describe('Spec Kit presets and implement steps through crow acp', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let repo: SpeckitRepo;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => llm.reset());
  afterEach(() => repo?.remove());

  it("tells the client the preset's /speckit.plan ran; a declined checklist gate ends the turn; the [P] note is said", async () => {
    repo = speckitRepo(llm);
    repo.write(`${FEATURE}/spec.md`, SPEC);
    repo.write(`${FEATURE}/plan.md`, PLAN);
    repo.write(`${FEATURE}/tasks.md`, '# Tasks\n\n## Phase 1: Core\n\n- [ ] T001 [P] Export in src/export.ts\n- [ ] T002 [P] Import in src/import.ts\n');
    repo.write('.specify/feature.json', `{"feature_directory": "${FEATURE}"}\n`);
    repo.write(`${FEATURE}/checklists/ux.md`, '- [ ] CHK001 Errors say what to do\n');
    installPreset(repo, 'house', [{ name: 'speckit.plan', text: '---\ndescription: house plan\n---\nPlan it the house way: $ARGUMENTS\n' }]);
    let answer: 'reject_once' | 'allow_once' = 'reject_once';
    const agent = startAcp(repo.root, repo.home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl }, { permission: () => answer });
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(repo.root);
      llm.enqueue('anthropic', toolCall('write_file', { path: `${FEATURE}/plan.md`, content: `${PLAN}\n## House\n` }), text('Planned the house way.'));
      const planned = await agent.client.prompt(sessionId, '/speckit.plan use sqlite');
      assert.equal(planned.stopReason, 'end_turn');
      assert.match(agent.client.said(sessionId) + agent.client.thought(sessionId), /\/speckit\.plan: running preset house's version \(\.specify\/presets\/house\/commands\/speckit\.plan\.md\), not Crow's own\./);
      assert.match(JSON.stringify(llm.requestsFor('anthropic')[0]!.body), /Plan it the house way: use sqlite/);

      llm.reset();
      const declined = await agent.client.prompt(sessionId, '/speckit.implement');
      assert.equal(declined.stopReason, 'end_turn', 'the person chose: their turn, not an error');
      assert.match(agent.client.said(sessionId) + agent.client.thought(sessionId), /you said no, so implementation did not start/);
      assert.equal(llm.requestsFor('anthropic').length, 0);

      answer = 'allow_once';
      llm.respondWith('anthropic', (body) => (JSON.stringify(body).includes('reports on the task below') ? complete('Approved.') : complete('Done.')));
      const implemented = await agent.client.prompt(sessionId, '/speckit.implement');
      assert.equal(implemented.stopReason, 'end_turn');
      assert.match(agent.client.said(sessionId) + agent.client.thought(sessionId), /\[P\] tasks T001, T002 run one at a time: the model server is one of your own, and limits\.concurrency\.local is 1 by default/);
      assert.match(repo.read(`${FEATURE}/tasks.md`), /- \[X\] T001[\s\S]*- \[X\] T002/);
    } finally {
      await agent.stop();
    }
  });
});
