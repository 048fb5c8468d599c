// Runs inside a real VS Code (npm run test:vscode); not part of the Node suite.
// A folder outside the workspace (the session store, the user's config folder) is watched by VS Code's
// watcher and by Node's beside it: every change the person or another crow process makes is seen.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchOutsideWorkspace } from '../../src/adapters/vscode/outside-watch';

suite('watching a folder outside the workspace', () => {
  let folder: string;
  setup(() => (folder = mkdtempSync(join(tmpdir(), 'crow-outside-watch-'))));
  teardown(() => rmSync(folder, { recursive: true, force: true }));

  /** Resolves on the first call of the watcher after `change`, or fails after 5 s. */
  async function seen(watch: (onChange: () => void) => { dispose(): void }, change: () => void): Promise<void> {
    let resolve!: () => void;
    const called = new Promise<void>((done) => (resolve = done));
    const watcher = watch(() => resolve());
    try {
      change();
      await Promise.race([called, new Promise((_, reject) => setTimeout(() => reject(new Error('the change was not seen within 5 s')), 5_000))]);
    } finally {
      watcher.dispose();
    }
  }

  test('sees a file it names written, at once', async () => {
    await seen(
      (onChange) => watchOutsideWorkspace(folder, 'config.toml', onChange, (name) => name === 'config.toml'),
      () => writeFileSync(join(folder, 'config.toml'), 'provider = "openai"\n'),
    );
  });

  test('ignores entries the filter leaves out', async () => {
    let calls = 0;
    const watcher = watchOutsideWorkspace(folder, 'config.toml', () => calls++, (name) => name === 'config.toml');
    try {
      writeFileSync(join(folder, 'notes.txt'), 'not a config\n');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.equal(calls, 0);
    } finally {
      watcher.dispose();
    }
  });

  test('works where the folder does not exist yet (VS Code alone), without throwing', () => {
    watchOutsideWorkspace(join(folder, 'missing'), 'config.toml', () => undefined).dispose();
  });
});
