/**
 * Loaded by mocha for every test file: a test fails when a fake LLM server
 * refused a request during it that the test did not take (`takeRefusals()`).
 * The engine turns most refusals into an error the test might not look at;
 * this keeps "the real API would have refused this" from passing unnoticed.
 */
import type { Context } from 'mocha';
import { FakeLlmServer } from '../../testkit/fake-llm-server';

export const mochaHooks = {
  afterEach(this: Context): void {
    const refused = FakeLlmServer.live().flatMap((server) => server.takeRefusals());
    if (refused.length === 0) return;
    const lines = refused.map(({ rule, refusal }) => `- ${rule}: HTTP ${refusal.status} ${refusal.type}: ${refusal.message}`);
    // A hook's error() fails the test it ran after, and the run goes on (throwing would fail the hook and stop the run).
    (this.test as unknown as { error(err: Error): void }).error(
      new Error(`The fake LLM server refused ${refused.length} request(s) as the real API would:\n${lines.join('\n')}`),
    );
  },
};
