import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redactor } from '../../../src/telemetry/redact';
import { SavedOutputs } from '../../../src/tools/saved-outputs';
import { tempDir } from './temp-workspace';

const SECRET = 'sk-test-secret-value-1234567890';

describe('saved outputs', () => {
  let base: ReturnType<typeof tempDir>;
  let folder: string;
  let outputs: SavedOutputs;

  beforeEach(() => {
    base = tempDir('crow-outputs-');
    folder = join(base.dir, 'sessions', 's1', 'outputs');
    const redactor = new Redactor({ MY_API_KEY: SECRET });
    outputs = new SavedOutputs(folder, (text) => redactor.text(text));
  });
  afterEach(() => base.remove());

  it('keeps a streamed output whole across the size it holds in memory, in a folder and file only the owner may read', async () => {
    const spool = outputs.spool('bash');
    const lines = Array.from({ length: 60_000 }, (_, i) => `line ${i} ${'x'.repeat(20)}\n`);
    // Chunks cut anywhere, as pipes deliver them.
    const whole = lines.join('');
    for (let at = 0; at < whole.length; at += 4_093) spool.push(whole.slice(at, at + 4_093));
    const saved = await spool.keep();
    assert.equal(readFileSync(saved.path, 'utf8'), whole);
    assert.equal(saved.lines, 60_000);
    assert.equal(saved.bytes, Buffer.byteLength(whole));
    assert.ok(outputs.owns(saved.path), saved.path);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.equal(statSync(saved.path).mode & 0o777, 0o600);
  });

  it('redacts secrets as the history does, one cut across two chunks or inside a line that never ends included', async () => {
    const spool = outputs.spool('bash');
    const half = SECRET.length / 2;
    spool.push(`token=${SECRET.slice(0, half)}`);
    spool.push(`${SECRET.slice(half)} done\n`);
    spool.push('.'.repeat(70_000));
    spool.push(SECRET.slice(0, 5));
    spool.push(`${SECRET.slice(5)}${'.'.repeat(70_000)}`);
    const text = readFileSync((await spool.keep()).path, 'utf8');
    assert.ok(!text.includes(SECRET.slice(0, 12)), 'no part of the secret reaches the file');
    assert.equal(text.match(/\[REDACTED\]/g)?.length, 2);
  });

  it('stops growing at its cap and says how much more there was', async () => {
    const small = new SavedOutputs(folder, (text) => text, 1_000);
    const spool = small.spool('bash');
    spool.push('a'.repeat(600));
    spool.push('b'.repeat(600));
    const saved = await spool.keep();
    const text = readFileSync(saved.path, 'utf8');
    assert.equal(saved.bytes, 1_000);
    assert.match(text, /^a{600}b{400}\n\[… saving stopped at 1,000 bytes: 200 more bytes were not saved\]\n$/);
  });

  it('leaves nothing behind when discarded, even after it went to disk', async () => {
    const spool = outputs.spool('bash');
    spool.push(`${'y'.repeat(2 * 1024 * 1024)}\n`);
    await spool.discard();
    assert.deepEqual(existsSync(folder) ? readdirSync(folder) : [], []);
  });

  it('owns exactly the paths it hands out, and nothing a hostile path can make of them', async () => {
    const saved = await outputs.save('bash', 'whole output\n');
    const name = saved.path.slice(folder.length + 1);
    const other = join(base.dir, 'sessions', 's2', 'outputs', name);
    for (const attempt of [
      `${folder}/../meta.json`,
      `${folder}/${name}/../../meta.json`,
      `${folder}//${name}`,
      `${folder}/./${name}`,
      `${folder}/${name}/`,
      `${folder}/${name} `,
      `${folder}/${name}\n`,
      `${folder}/${name.toUpperCase()}`,
      `${folder}/../outputs/${name}`,
      `${folder}-evil/${name}`,
      other,
      `outputs/${name}`,
      name,
      `${folder}/meta.json`,
      `${folder}/bash-0123456789ab.txt.bak`,
    ]) {
      assert.equal(outputs.owns(attempt), false, attempt);
      await assert.rejects(outputs.read(attempt), /No saved output/, attempt);
    }
    assert.equal(new TextDecoder().decode(await outputs.read(saved.path)), 'whole output\n');
  });

  it('refuses a saved-output name that is a link, or a folder that was swapped for one', async () => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(base.dir, 'private.txt'), 'private\n');
    const planted = join(folder, 'bash-0123456789ab.txt');
    symlinkSync(join(base.dir, 'private.txt'), planted);
    assert.equal(outputs.owns(planted), true, 'the name alone looks right');
    await assert.rejects(outputs.read(planted), /No saved output/);

    const saved = await outputs.save('bash', 'mine\n');
    const elsewhere = join(base.dir, 'elsewhere');
    renameSync(folder, elsewhere);
    symlinkSync(elsewhere, folder);
    await assert.rejects(outputs.read(saved.path), /No saved output/);
  });

  it("refuses an output crow did not write: another user's, one others may write, or one in a folder others may write", async () => {
    const saved = await outputs.save('bash', 'mine\n');
    chmodSync(saved.path, 0o666);
    await assert.rejects(outputs.read(saved.path), /No saved output/, 'a file others may write');
    chmodSync(saved.path, 0o600);
    if (process.getuid?.() === 0) {
      chownSync(saved.path, 65534, 65534);
      await assert.rejects(outputs.read(saved.path), /No saved output/, "another user's file");
      chownSync(saved.path, 0, 0);
    }
    chmodSync(folder, 0o777);
    await assert.rejects(outputs.read(saved.path), /No saved output/, 'a folder others may write');
    chmodSync(folder, 0o700);
    assert.equal(new TextDecoder().decode(await outputs.read(saved.path)), 'mine\n');
  });

  it('never writes through a file planted at its next name', async () => {
    mkdirSync(folder, { recursive: true });
    const target = join(base.dir, 'target.txt');
    writeFileSync(target, 'untouched\n');
    // The next name is random; this store's is known, so a link can wait there.
    const fixed = new (class extends SavedOutputs {
      override newPath(): string {
        return join(folder, 'bash-0123456789ab.txt');
      }
    })(folder, (text) => text);
    symlinkSync(target, join(folder, 'bash-0123456789ab.txt'));
    await assert.rejects(fixed.save('bash', 'attacker wants this in target\n'), /Could not save the whole output/);
    assert.equal(readFileSync(target, 'utf8'), 'untouched\n');
  });
});
