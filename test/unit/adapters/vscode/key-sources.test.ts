/**
 * Where the extension finds API keys, without the workbench: SecretStorage
 * ("Crow: Set API Key") first, then the extension host's environment, then
 * the key `crow login` stored, read from the same record the CLI writes.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoginKeys } from '../../../../src/config/login-keys';
import { engineEnvironment, loginKeysFor } from '../../../../src/adapters/vscode/key-sources';

describe('API keys in VS Code: SecretStorage, then the environment, then crow login', () => {
  let data: string;
  beforeEach(() => {
    data = mkdtempSync(join(tmpdir(), 'crow-vscode-keys-'));
    chmodSync(data, 0o700);
  });
  afterEach(() => rmSync(data, { recursive: true, force: true }));
  const store = () => new LoginKeys(data, () => ({ unavailable: 'no keychain in this test' }));

  it('takes each variable from the first source that has it', () => {
    const env = engineEnvironment(
      { PATH: '/bin', OPENAI_API_KEY: 'from-env', ANTHROPIC_API_KEY: '' },
      { ANTHROPIC_API_KEY: 'from-login', OPENAI_API_KEY: 'from-login', MY_PROXY_KEY: 'from-login' },
      { MY_PROXY_KEY: 'from-secret-storage' },
    );
    assert.equal(env.ANTHROPIC_API_KEY, 'from-login', 'an empty variable does not hide the stored key');
    assert.equal(env.OPENAI_API_KEY, 'from-env', 'the environment wins over crow login');
    assert.equal(env.MY_PROXY_KEY, 'from-secret-storage', 'a key set in VS Code wins over both');
    assert.equal(env.PATH, '/bin');
  });

  it('reads the key crow login stored, and tells a record it must not use to the log, never a key', () => {
    store().save('ANTHROPIC_API_KEY', 'anthropic', 'sk-ant-from-crow-login-0123');
    const warnings: string[] = [];
    assert.deepEqual(loginKeysFor({}, (problem) => warnings.push(problem), store()), { ANTHROPIC_API_KEY: 'sk-ant-from-crow-login-0123' });
    assert.deepEqual(loginKeysFor({ ANTHROPIC_API_KEY: 'set' }, (problem) => warnings.push(problem), store()), {});
    chmodSync(join(data, 'keys', 'keys.json'), 0o640);
    assert.deepEqual(loginKeysFor({}, (problem) => warnings.push(problem), store()), {});
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /can be used by other users/);
    assert.ok(!warnings[0]!.includes('sk-ant-from-crow-login'));
  });
});
