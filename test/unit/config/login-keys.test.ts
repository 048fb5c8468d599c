import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyProblem, MAX_KEY_LENGTH, trimmedKey } from '../../../src/config/key-text';
import { LoginKeys, storedKeysFor, withStoredKeys } from '../../../src/config/login-keys';
import type { Keychain, NoKeychain } from '../../../src/config/os-keychain';
import { KeyEnvironment } from '../../../src/adapters/acp/key-environment';
import { Redactor } from '../../../src/telemetry/redact';

const KEY = 'sk-ant-api03-abcdefghijklmnop_0123456789';

/**
 * A keychain as strict as the binding over a real one (@napi-rs/keyring's
 * Entry): getPassword gives null for an entry never set, deletePassword
 * answers whether there was one, and a locked keychain throws on every
 * call (the binding's "Platform failure" / "AccessDenied" errors).
 */
class FakeKeychain implements Keychain {
  readonly name = 'the test keychain';
  readonly entries = new Map<string, string>();
  locked = false;
  /** Longest secret it takes (Windows' Credential Manager: 2,560 bytes). */
  maxBytes = Infinity;

  get(account: string): string | undefined {
    this.check();
    return this.entries.get(account);
  }
  set(account: string, secret: string): void {
    this.check();
    if (Buffer.byteLength(secret, 'utf16le') > this.maxBytes) throw new Error('Attribute "password" is too long for the platform store');
    this.entries.set(account, secret);
  }
  delete(account: string): boolean {
    this.check();
    return this.entries.delete(account);
  }
  private check(): void {
    if (this.locked) throw new Error("Couldn't access platform storage: AccessDenied");
  }
}

describe('API keys kept by crow login', () => {
  let data: string;
  let keychain: FakeKeychain;
  const noKeychain = (): NoKeychain => ({ unavailable: 'no Secret Service on this machine' });
  const store = (find: () => Keychain | NoKeychain = () => keychain) => new LoginKeys(data, find);

  beforeEach(() => {
    data = mkdtempSync(join(tmpdir(), 'crow-keys-'));
    chmodSync(data, 0o700);
    keychain = new FakeKeychain();
  });
  afterEach(() => rmSync(data, { recursive: true, force: true }));

  it('keeps the key in the keychain when there is one, and only its name in the record', () => {
    const saved = store().save('ANTHROPIC_API_KEY', 'anthropic', KEY);
    assert.deepEqual(saved, { place: 'keychain', where: 'the test keychain' });
    assert.equal(keychain.entries.get('ANTHROPIC_API_KEY'), KEY);
    const record = readFileSync(join(data, 'keys', 'keys.json'), 'utf8');
    assert.ok(!record.includes(KEY), 'the record never holds a key kept in the keychain');
    assert.equal(statSync(join(data, 'keys')).mode & 0o777, 0o700);
    assert.equal(statSync(join(data, 'keys', 'keys.json')).mode & 0o777, 0o600);
    assert.equal(store().key('ANTHROPIC_API_KEY'), KEY);
    assert.deepEqual(store().list(), [{ variable: 'ANTHROPIC_API_KEY', provider: 'anthropic', place: 'keychain' }]);
  });

  it('falls back to a 0600 file in a 0700 folder, saying why, when there is no keychain', () => {
    const saved = store(noKeychain).save('OPENAI_API_KEY', 'openai', KEY);
    assert.equal(saved.place, 'file');
    assert.equal(saved.keychainProblem, 'no Secret Service on this machine');
    assert.equal(statSync(join(data, 'keys', 'keys.json')).mode & 0o777, 0o600);
    assert.equal(store(noKeychain).key('OPENAI_API_KEY'), KEY);
  });

  it('falls back to the file when the keychain refuses the key (locked, or a key too long for it), and removes an older copy there', () => {
    store().save('ANTHROPIC_API_KEY', 'anthropic', 'sk-old-key-0123456789');
    keychain.maxBytes = 2560;
    const long = `sk-${'a'.repeat(2000)}`;
    const saved = store().save('ANTHROPIC_API_KEY', 'anthropic', long);
    assert.equal(saved.place, 'file');
    assert.match(saved.keychainProblem ?? '', /too long/);
    assert.equal(keychain.entries.has('ANTHROPIC_API_KEY'), false, 'the old key is not left in the keychain');
    assert.equal(store().key('ANTHROPIC_API_KEY'), long);
    keychain.locked = true;
    assert.equal(store().save('OPENAI_API_KEY', 'openai', KEY).place, 'file');
  });

  it('tells what to do when a key kept in the keychain cannot be read, never the key', () => {
    store().save('ANTHROPIC_API_KEY', 'anthropic', KEY);
    keychain.locked = true;
    assert.throws(() => store().key('ANTHROPIC_API_KEY'), /did not answer \(Couldn't access platform storage: AccessDenied\)\. Unlock it, or run crow login again/);
    keychain.locked = false;
    keychain.entries.clear();
    assert.throws(() => store().key('ANTHROPIC_API_KEY'), /no longer in the test keychain .* Run crow login again/);
    const { keys, problems } = storedKeysFor({}, store());
    assert.deepEqual(keys, {});
    assert.equal(problems.length, 1);
    assert.ok(!problems[0]!.includes(KEY));
  });

  it('lets a key in the environment win, and adds stored keys only for variables left unset', () => {
    store().save('ANTHROPIC_API_KEY', 'anthropic', KEY);
    store().save('OPENAI_API_KEY', 'openai', 'sk-openai-0123456789abcdef');
    const { env } = withStoredKeys({ ANTHROPIC_API_KEY: 'from-env', OPENAI_API_KEY: '' }, store());
    assert.equal(env.ANTHROPIC_API_KEY, 'from-env');
    assert.equal(env.OPENAI_API_KEY, 'sk-openai-0123456789abcdef', 'an empty variable counts as unset, as providers read it');
  });

  it('costs nothing but one lstat when nothing was stored (no keychain reached)', () => {
    const { env, problems } = withStoredKeys({ PATH: '/bin' }, store(() => assert.fail('the keychain was reached')));
    assert.deepEqual(env, { PATH: '/bin' });
    assert.deepEqual(problems, []);
  });

  it('logout forgets the key wherever it is; --all removes the keychain entries and the record', () => {
    store().save('ANTHROPIC_API_KEY', 'anthropic', KEY);
    store(noKeychain).save('OPENAI_API_KEY', 'openai', KEY);
    assert.deepEqual(store().remove('ANTHROPIC_API_KEY'), { variable: 'ANTHROPIC_API_KEY', provider: 'anthropic', place: 'keychain' });
    assert.equal(keychain.entries.size, 0);
    assert.equal(store().remove('ANTHROPIC_API_KEY'), undefined);
    store().save('ANTHROPIC_API_KEY', 'anthropic', KEY);
    assert.equal(store().removeAll().length, 2);
    assert.equal(keychain.entries.size, 0);
    assert.equal(existsSync(join(data, 'keys', 'keys.json')), false);
  });

  describe('a record file Crow must not trust', () => {
    const file = () => join(data, 'keys', 'keys.json');
    const seed = () => store(noKeychain).save('ANTHROPIC_API_KEY', 'anthropic', KEY);

    it('refuses one others can read, saying to treat its keys as seen, and never reads it', () => {
      seed();
      chmodSync(file(), 0o644);
      assert.throws(() => store().list(), /can be used by other users \(mode 644\).*treat the keys in it as seen.*crow logout --all/);
      assert.throws(() => store().save('OPENAI_API_KEY', 'openai', KEY), /can be used by other users/);
      const { keys, problems } = storedKeysFor({}, store());
      assert.deepEqual(keys, {});
      assert.match(problems[0]!, /mode 644/);
    });

    it('refuses a link in its place (never reads or writes through it), and logout --all removes the link only', () => {
      const elsewhere = join(data, 'elsewhere.json');
      writeFileSync(elsewhere, JSON.stringify({ version: 1, keys: { ANTHROPIC_API_KEY: { provider: 'anthropic', place: 'file', key: 'sk-planted-0123456789' } } }), { mode: 0o600 });
      mkdirSync(join(data, 'keys'), { mode: 0o700 });
      symlinkSync(elsewhere, file());
      assert.throws(() => store().key('ANTHROPIC_API_KEY'), /is a link/);
      assert.throws(() => store().save('ANTHROPIC_API_KEY', 'anthropic', KEY), /is a link/);
      store().removeAll();
      assert.equal(existsSync(file()), false);
      assert.ok(existsSync(elsewhere), 'what the link pointed at is left alone');
    });

    it('refuses a folder others can write', () => {
      seed();
      chmodSync(join(data, 'keys'), 0o777);
      assert.throws(() => store().list(), /folder others can use/);
      chmodSync(join(data, 'keys'), 0o700);
    });

    it('reads a damaged record as damaged, and the next sign-in sets it aside instead of losing it', () => {
      mkdirSync(join(data, 'keys'), { mode: 0o700 });
      for (const damaged of ['{"version":1,"keys":', '[]', '{"version":2,"keys":{}}', '{"version":1,"keys":{"BAD NAME":{"provider":"x","place":"file","key":"k"}}}', `{"version":1,"keys":{"A":{"provider":"a","place":"file","key":"line\\nbreak"}}}`]) {
        writeFileSync(file(), damaged, { mode: 0o600 });
        assert.throws(() => store().list(), /is damaged .* crow login to start a new one/, damaged);
      }
      const saved = store(noKeychain).save('ANTHROPIC_API_KEY', 'anthropic', KEY);
      assert.match(saved.setAside ?? '', /keys\.json\.damaged-\d+$/);
      assert.equal(readFileSync(saved.setAside!, 'utf8'), `{"version":1,"keys":{"A":{"provider":"a","place":"file","key":"line\\nbreak"}}}`);
      assert.equal(store().key('ANTHROPIC_API_KEY'), KEY);
      assert.equal(readdirSync(join(data, 'keys')).length, 2);
    });
  });

  describe('what crow login accepts as a key', () => {
    it('takes the key without the spaces and line end around it', () => {
      assert.equal(trimmedKey(`  ${KEY}\r\n`), KEY);
      assert.equal(keyProblem(KEY), undefined);
    });

    it('refuses an empty key, line breaks, escape sequences, control characters, spaces, non-ASCII and an over-long key, never quoting it', () => {
      const cases: [string, RegExp][] = [
        ['', /empty/],
        ['sk-abc\ndef', /line break .* at character 7/],
        ['sk-\u001b[Aabc', /escape character/],
        ['sk-a\u0000b', /control character \(U\+0000\)/],
        ['sk-a\u009bb', /control character \(U\+009B\)/],
        ['sk-a b', /a space/],
        ['sk-a\tb', /a tab/],
        ['sk-ключ', /outside ASCII/],
        ['x'.repeat(MAX_KEY_LENGTH + 1), /4097 characters long/],
      ];
      for (const [key, message] of cases) {
        const problem = keyProblem(key);
        assert.match(problem ?? '', message, JSON.stringify(key.slice(0, 20)));
        if (key.length > 3) assert.ok(!problem!.includes(key), 'the key is never quoted');
      }
      assert.equal(keyProblem('x'.repeat(MAX_KEY_LENGTH)), undefined);
    });
  });

  describe('crow acp\'s environment', () => {
    it('reads keys stored while it runs into the object sessions hold, and teaches redactors the new key', () => {
      const learned: string[][] = [];
      const keys = new KeyEnvironment({ PATH: '/bin' }, store(noKeychain), { problem: assert.fail, learned: (values) => learned.push(values) });
      const sessionEnv = keys.env;
      const redactor = new Redactor(sessionEnv, []);
      assert.equal(sessionEnv.ANTHROPIC_API_KEY, undefined);
      store(noKeychain).save('ANTHROPIC_API_KEY', 'anthropic', KEY);
      keys.refresh();
      assert.equal(sessionEnv.ANTHROPIC_API_KEY, KEY, 'the same object, changed in place');
      assert.deepEqual(learned, [[KEY]]);
      redactor.learn(learned[0]!);
      assert.equal(redactor.text(`key=${KEY}`), 'key=[REDACTED]');
      keys.refresh();
      assert.equal(learned.length, 1, 'an unchanged record is not read again');
      store(noKeychain).remove('ANTHROPIC_API_KEY');
      keys.refresh();
      assert.equal('ANTHROPIC_API_KEY' in sessionEnv, false, 'a key forgotten by crow logout is gone from the environment');
    });
  });
});
