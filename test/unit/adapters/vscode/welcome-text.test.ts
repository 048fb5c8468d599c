import assert from 'node:assert/strict';
import { welcomeText } from '../../../../src/adapters/vscode/chat/transcript-translator';
import { policyFromConfig } from '../../../../src/config/permission-config';

/** The empty chat says what Crow will do unasked, as the permissions in force have it (it used to promise to ask, always). */
describe('the chat welcome text', () => {
  it('says it asks, by default and without a sandbox', () => {
    assert.match(welcomeText(policyFromConfig(undefined, false), false), /It asks before changing files and asks before running commands\.$/);
  });

  it('says commands run unasked in the sandbox while the sandbox contains them, and what that means', () => {
    const text = welcomeText(policyFromConfig(undefined, true), true);
    assert.match(text, /runs commands in a sandbox without asking \(they can write only inside this workspace, with no network and no API keys\)/);
    assert.match(welcomeText(policyFromConfig(undefined, true), false), /asks before running commands/, 'no sandbox at hand: commands are asked for');
  });

  it('follows rules set explicitly', () => {
    const policy = policyFromConfig({ write: 'allow', execute: 'deny' }, true);
    assert.match(welcomeText(policy, true), /It changes files without asking and does not run commands\.$/);
    assert.match(welcomeText(policyFromConfig({ write: 'deny', execute: 'allow' }, false), false), /does not change files and runs commands without asking/);
  });
});
