/**
 * Who judges parallel attempts (judge.ts judgeAgent, one rule for every
 * door) and how a reviewer stands in for judge-attempts (stand-in.ts): its
 * own prompt and model, judge-attempts' read-only tools narrowed to its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveAgent } from '../../../src/agents/stand-in';
import { roleModels } from '../../../src/agents/role-models';
import { JUDGE_AGENT, judgeAgent, judgeWords } from '../../../src/attempts/judge';
import { AgentRegistry } from '../../../src/config/agent-registry';
import { resolveSettings } from '../../../src/config/provider-config';

describe('the judge of parallel attempts', () => {
  let home: string;
  let registry: AgentRegistry;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-judge-agent-'));
    registry = AgentRegistry.load(home, { XDG_CONFIG_HOME: home }).registry;
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it("is the named judge, else the agent's reviewer when its flow has one, else judge-attempts", () => {
    assert.equal(judgeAgent(registry.acpAgent('pair'), 'my-judge'), 'my-judge');
    assert.equal(judgeAgent(registry.acpAgent('pair')), 'judge-attempts@reviewer');
    assert.equal(judgeAgent(registry.acpAgent('build-verified')), `judge-attempts@${registry.acpAgent('build-verified')!.coagent}`);
    assert.equal(judgeAgent(registry.acpAgent('build')), JUDGE_AGENT, 'hitl: no reviewer');
    assert.equal(judgeAgent(undefined), JUDGE_AGENT, 'an agent the sessions did not know');
    // A coagent named by a flow without review (hitl) is not a reviewer.
    assert.equal(judgeAgent({ flow: { kind: 'hitl' }, coagent: 'reviewer' }), JUDGE_AGENT);
    assert.equal(judgeWords('judge-attempts@reviewer'), "the agent's reviewer (reviewer)");
    assert.equal(judgeWords('judge-attempts'), 'judge-attempts');
  });

  it("resolves a stand-in: the reviewer's own prompt and role, judge-attempts' flow and tools narrowed to the reviewer's", () => {
    const reviewer = resolveAgent('judge-attempts@reviewer', registry)!;
    assert.equal(reviewer.definition.flow.kind, 'hitl');
    assert.equal(reviewer.primary.name, 'reviewer');
    assert.equal(reviewer.primary.systemPrompt, registry.baseAgent('reviewer')!.systemPrompt);
    assert.deepEqual(reviewer.primary.tools, registry.baseAgent('attempt-judge')!.tools, 'a reviewer with every tool gets the judge\'s read-only ones');
    assert.equal(reviewer.primaryRole, 'coagent', "it takes the reviewer's model choice");
    // judge (build-judged's reviewer) may only think, read the todo list and approve: of the judge's tools, think.
    assert.deepEqual(resolveAgent('judge-attempts@judge', registry)!.primary.tools, ['think']);
    assert.equal(resolveAgent('judge-attempts@nobody', registry), undefined);
    assert.equal(resolveAgent('nothing@reviewer', registry), undefined);
    assert.equal(resolveAgent('@reviewer', registry), undefined);
    const settings = resolveSettings(home, {}, { XDG_CONFIG_HOME: home }, { trusted: false });
    assert.deepEqual(roleModels('judge-attempts@reviewer', registry, settings).map((offer) => offer.role), ['coagent']);
  });
});
