/**
 * crow trace --serve hands the browser nothing another local user can
 * redeem: the one-time URL is in the opener's arguments (/proc/PID/cmdline,
 * readable by every user), so another user watching /proc reads it and
 * tries it first; only the person's own browser gets in. Through the real
 * binary on a terminal, with a stand-in opener that acts as the browser.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { anotherUserSuite, nodeAnyUserCanRun } from '../support/another-user';
import { CROW, runCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { skipBecause } from '../support/skip-reasons';
import { NO_TMUX, Terminal } from '../support/terminal';

/**
 * A browser as the server sees one: loads the URL it is given (the redirect not followed), keeps the
 * cookie that load sets, then asks for /spans with it. Prints {"load": STATUS, "spans": STATUS}.
 */
const BROWSER = `
const [url] = process.argv.slice(2);
(async () => {
  const load = await fetch(url, { redirect: 'manual' });
  const cookie = (load.headers.get('set-cookie') ?? '').split(';')[0];
  const spans = await fetch(new URL('/spans', url), { headers: { cookie } });
  process.stdout.write(JSON.stringify({ load: load.status, spans: spans.status }));
})();
`;

/** Another user watching /proc: every process argument that is a one-time URL of the trace server, tried at once. */
const WATCHER = `
const { readdirSync, readFileSync } = require('node:fs');
const found = [];
for (const pid of readdirSync('/proc').filter((name) => /^\\d+$/.test(name))) {
  try {
    for (const arg of readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0')) if (/^http:\\/\\/127\\.0\\.0\\.1:\\d+\\/\\?code=/.test(arg)) found.push(arg);
  } catch {}
}
(async () => {
  const tries = [];
  for (const url of found) {
    const load = await fetch(url, { redirect: 'manual' });
    const cookie = (load.headers.get('set-cookie') ?? '').split(';')[0];
    const spans = await fetch(new URL('/spans', url), { headers: { cookie } });
    tries.push({ url, load: load.status, spans: spans.status });
  }
  process.stdout.write(JSON.stringify(tries));
})();
`;

describe('crow trace --serve: the browser hand-off, watched by another local user', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let base: string;

  before(function () {
    if (NO_TMUX) skipBecause(this, NO_TMUX);
  });
  const other = anotherUserSuite();
  before(async () => (llm = await FakeLlmServer.start()));
  after(async () => llm?.close());
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'crow-handoff-'));
    // The other user may run the watcher script from here (mkdtemp makes it 0700).
    chmodSync(base, 0o755);
    mkdirSync(join(base, 'ws'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('another user who reads the one-time URL from /proc gets nothing; the browser the opener starts still gets in', async () => {
    const home = join(base, 'home');
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'handoff-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
    assert.equal((await runCrow(['run', 'Hello', '--provider', 'anthropic', '--model', 'claude-test'], env, join(base, 'ws'))).code, 0);
    const [id] = readdirSync(join(home, 'data', 'crow-agent', 'sessions'));
    // The opener: it says it has started, waits (keeping the URL in its arguments) until the watcher has looked, then browses.
    const bin = join(base, 'bin');
    mkdirSync(bin);
    writeFileSync(join(base, 'browser.js'), BROWSER);
    writeFileSync(join(base, 'watcher.js'), WATCHER, { mode: 0o644 });
    const started = join(base, 'opener-started');
    const go = join(base, 'go');
    const browsed = join(base, 'browsed');
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!/bin/sh\ntouch '${started}'\nwhile [ ! -e '${go}' ]; do sleep 0.05; done\n'${process.execPath}' '${join(base, 'browser.js')}' "$1" > '${browsed}.part' && mv '${browsed}.part' '${browsed}'\n`,
      { mode: 0o755 },
    );
    const terminal = Terminal.start([process.execPath, CROW, 'trace', id!, '--serve'], { cwd: join(base, 'ws'), env: { ...env, PATH: `${bin}:${process.env.PATH}` } });
    try {
      await until(() => existsSync(started), `the opener; the screen:\n${terminal.screen()}`, 30_000);
      const watched = other.user.run(nodeAnyUserCanRun(), [join(base, 'watcher.js')], { PATH: process.env.PATH });
      assert.equal(watched.status, 0, watched.stderr);
      const tries = JSON.parse(watched.stdout) as { url: string; load: number; spans: number }[];
      assert.equal(tries.length, 1, 'the other user found the one-time URL in the opener\'s arguments');
      assert.deepEqual(tries.map(({ load, spans }) => ({ load, spans })), [{ load: 401, spans: 401 }], 'and could not redeem it');

      writeFileSync(go, '');
      await until(() => existsSync(browsed), 'the browser', 30_000);
      assert.deepEqual(JSON.parse(readFileSync(browsed, 'utf8')), { load: 303, spans: 200 }, "the person's browser got in with the same code");
    } finally {
      writeFileSync(go, '');
      terminal.press('C-c');
      await terminal.waitForExit().catch(() => undefined);
      terminal.close();
    }
  });
});
