import assert from 'node:assert/strict';
import { participantRequest } from '../../../../src/adapters/vscode/participant-request';

describe('what @crow makes of a request', () => {
  const agents = ['build', 'pair', 'plan', 'build-loop', 'pair-chat'];

  it('runs an offered /command that names an agent on that agent, with the rest as the prompt', () => {
    assert.deepEqual(participantRequest('pair', 'add a test', agents), { agent: 'pair', text: 'add a test' });
  });

  it("passes an offered /command that names no agent on to the session as typed (Crow's own slash commands)", () => {
    assert.deepEqual(participantRequest('explain', 'src/app.ts', agents), { text: '/explain src/app.ts' });
  });

  it('reaches an agent the list does not offer by typing its name as a command', () => {
    assert.deepEqual(participantRequest(undefined, '/build-loop  fix every failing test\nthen stop', agents), { agent: 'build-loop', text: 'fix every failing test\nthen stop' });
    assert.deepEqual(participantRequest(undefined, '/pair-chat', agents), { agent: 'pair-chat', text: '' });
  });

  it('leaves other text alone: a slash word that is no agent, or a prompt without one', () => {
    assert.deepEqual(participantRequest(undefined, '/undo', agents), { text: '/undo' });
    assert.deepEqual(participantRequest(undefined, 'use /build-loop later', agents), { text: 'use /build-loop later' });
  });
});
