// Runs inside a real VS Code (npm run test:vscode); not part of the Node suite.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type CommandRoute, VscodeWorkspace, type VscodeWorkspaceOptions } from '../../src/adapters/vscode/vscode-workspace';
import { probeSandbox } from '../../src/tools/sandbox-probe';
import { type ExecOptions, WorkspaceError } from '../../src/tools/workspace';

/** Whether a process still runs; a zombie waiting to be reaped counts as stopped. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** Running processes whose command line is `sleep <marker>` (host pids; the sandbox has its own). */
function sleepers(marker: string): number {
  return fs
    .readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${marker}\0` && running(Number(pid));
      } catch {
        return false;
      }
    }).length;
}

suite('VS Code workspace backend', () => {
  let root: string;
  /** This suite's own folder inside the opened workspace, workspace-relative. */
  let sub: string;
  let outside: string;
  /** Folders to remove at the end. */
  const madeFolders: string[] = [];
  const workspaces: VscodeWorkspace[] = [];

  const made = (options: VscodeWorkspaceOptions = {}) => {
    const workspace = new VscodeWorkspace(root, options);
    workspaces.push(workspace);
    return workspace;
  };
  const at = (name: string) => path.join(root, sub, name);
  const write = (name: string, content: string | Uint8Array) => {
    fs.mkdirSync(path.dirname(at(name)), { recursive: true });
    fs.writeFileSync(at(name), content);
  };
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const signal = () => new AbortController().signal;

  suiteSetup(() => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the harness opens a workspace folder');
    root = fs.realpathSync(folder.uri.fsPath);
    sub = `crow-workspace-test-${process.pid}`;
    fs.mkdirSync(path.join(root, sub));
    madeFolders.push(path.join(root, sub));
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crow-outside-')));
    madeFolders.push(outside);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  });

  suiteTeardown(() => {
    for (const workspace of workspaces) workspace.dispose();
    for (const folder of madeFolders) fs.rmSync(folder, { recursive: true, force: true });
  });

  /** Leaves no unsaved editor behind, so closing the window never asks. */
  async function revertAndClose(document: vscode.TextDocument): Promise<void> {
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }

  test('a read sees the unsaved text of an open editor', async () => {
    write('buffer.txt', 'on disk\n');
    const document = await vscode.workspace.openTextDocument(at('buffer.txt'));
    const editor = await vscode.window.showTextDocument(document);
    await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), 'unsaved '));
    assert.ok(document.isDirty);

    assert.equal(text(await made().readFile(`${sub}/buffer.txt`)), 'unsaved on disk\n');
    assert.equal(fs.readFileSync(at('buffer.txt'), 'utf8'), 'on disk\n', 'the disk is left alone');
    await revertAndClose(document);
    assert.equal(text(await made().readFile(`${sub}/buffer.txt`)), 'on disk\n', 'a clean buffer reads as the disk');
  });

  test('a write goes through the editor, is saved, and undo takes it back', async () => {
    write('edit.txt', 'one\ntwo\nthree\n');
    const document = await vscode.workspace.openTextDocument(at('edit.txt'));
    await vscode.window.showTextDocument(document);

    await made().writeFile(`${sub}/edit.txt`, 'one\n2\nthree\n');
    assert.equal(fs.readFileSync(at('edit.txt'), 'utf8'), 'one\n2\nthree\n', 'saved to disk');
    assert.equal(document.getText(), 'one\n2\nthree\n', 'the open editor shows it');
    assert.equal(document.isDirty, false);

    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), 'one\ntwo\nthree\n', 'Ctrl+Z restores the old text');
    await revertAndClose(document);
  });

  test('a write creates a new file with its folders, and keeps line breaks and bytes exact', async () => {
    const workspace = made();
    await workspace.writeFile(`${sub}/new/deep/file.txt`, 'hello\n');
    assert.equal(fs.readFileSync(at('new/deep/file.txt'), 'utf8'), 'hello\n');

    write('lf.txt', 'a\nb\n');
    await workspace.writeFile(`${sub}/lf.txt`, 'a\r\nb\r\nc\r\n');
    assert.equal(fs.readFileSync(at('lf.txt'), 'utf8'), 'a\r\nb\r\nc\r\n', 'CRLF text stays CRLF');

    const binary = Uint8Array.from([0x00, 0xff, 0xfe, 0x0a, 0x80]);
    write('data.bin', 'old');
    await workspace.writeFile(`${sub}/data.bin`, binary);
    assert.deepEqual([...fs.readFileSync(at('data.bin'))], [...binary]);
    assert.deepEqual([...(await workspace.readFile(`${sub}/data.bin`))], [...binary]);
  });

  test('findFiles and grep leave out what files.exclude and .gitignore hide', async () => {
    write('search/keep.ts', 'const needle = 1;\n');
    write('search/hidden/skip.ts', 'const needle = 2;\n');
    write('search/ignored.ts', 'const needle = 3;\n');
    write('search/.gitignore', 'ignored.ts\n');
    const files = vscode.workspace.getConfiguration('files');
    const before = files.inspect<Record<string, boolean>>('exclude')?.workspaceValue;
    await files.update('exclude', { ...before, [`${sub}/search/hidden`]: true }, vscode.ConfigurationTarget.Workspace);
    try {
      const workspace = made();
      const found = await workspace.findFiles({ path: `${sub}/search`, globs: ['*.ts'], limit: 10, signal: signal() });
      assert.deepEqual(found, { files: [`${sub}/search/keep.ts`], truncated: false, warnings: [] });

      const grep = await workspace.grep({ pattern: 'needle = \\d', path: `${sub}/search`, maxMatches: 10, signal: signal() });
      assert.deepEqual(
        grep.matches.map((match) => [match.path, match.line, match.text]),
        [[`${sub}/search/keep.ts`, 1, 'const needle = 1;']],
      );
    } finally {
      await files.update('exclude', before, vscode.ConfigurationTarget.Workspace);
    }
    const reason = new Error('the prompt was cancelled');
    await assert.rejects(
      made().findFiles({ path: `${sub}/search`, limit: 10, signal: AbortSignal.abort(reason) }),
      (err: unknown) => err === reason,
    );
    const unhidden = await made().findFiles({ path: `${sub}/search`, globs: ['*.ts'], sort: 'path', limit: 10, signal: signal() });
    assert.deepEqual(unhidden.files, [`${sub}/search/hidden/skip.ts`, `${sub}/search/keep.ts`]);
  });

  test('grep finds text with its line and context', async () => {
    write('grep/notes.md', 'alpha\nbeta gamma\ndelta\n');
    const result = await made().grep({ pattern: 'gamma', path: `${sub}/grep`, context: 1, maxMatches: 5, signal: signal() });
    assert.equal(result.matches.length, 1);
    const [match] = result.matches;
    assert.deepEqual(
      [match?.path, match?.line, match?.text, match?.before.map((line) => line.text), match?.after.map((line) => line.text)],
      [`${sub}/grep/notes.md`, 2, 'beta gamma', ['alpha'], ['delta']],
    );
  });

  const execOptions = (extra: Partial<ExecOptions> = {}): ExecOptions => ({ timeoutMs: 20_000, signal: signal(), ...extra });

  test('a command run as a child process keeps its output and exit code', async () => {
    const routes: CommandRoute[] = [];
    const workspace = made({ commands: 'process', onCommandRoute: (route) => routes.push(route) });
    fs.mkdirSync(at('cwd'), { recursive: true });
    const result = await workspace.exec('echo out; echo err >&2; pwd; exit 3', execOptions({ cwd: `${sub}/cwd` }));
    assert.deepEqual(result, {
      exitCode: 3,
      output: `out\nerr\n${at('cwd')}\n`,
      omittedBytes: 0,
      timedOut: false,
      aborted: false,
    });
    assert.deepEqual(routes, [{ kind: 'process', reason: 'commands are set to run as child processes' }]);
  });

  test('a command runs in the Crow terminal when shell integration shows up, else as a child process', async () => {
    const routes: CommandRoute[] = [];
    const workspace = made({ shellIntegrationTimeoutMs: 15_000, onCommandRoute: (route) => routes.push(route) });
    const streamed: string[] = [];
    const result = await workspace.exec(
      'printf "first\\n"; printf "\\033[31mred\\033[0m\\n" >&2; echo "$PWD"; exit 4',
      execOptions({ cwd: sub, onOutput: (chunk) => streamed.push(chunk) }),
    );
    console.log(`      (command route: ${JSON.stringify(routes[0])})`);
    assert.equal(routes.length, 1);
    const expected = routes[0]?.kind === 'terminal' ? 'first\nred\n' : 'first\n\x1b[31mred\x1b[0m\n';
    const { startupMs, ...ran } = result;
    assert.deepEqual(ran, {
      exitCode: 4,
      output: `${expected}${path.join(root, sub)}\n`,
      omittedBytes: 0,
      timedOut: false,
      aborted: false,
    });
    // A new terminal's start (or a terminal that never came) is not the command's own time: it is told apart.
    assert.ok(startupMs !== undefined && startupMs > 0, 'the time before the command could start is reported');
    assert.equal(streamed.join(''), result.output, 'output streams as it comes');
    const route = routes[0];
    if (route?.kind === 'terminal') {
      const terminal = vscode.window.terminals.find((candidate) => candidate.name === route.terminal);
      assert.ok(terminal?.shellIntegration, 'the Crow terminal is there, with shell integration');
      const again = await workspace.exec('echo again', execOptions());
      assert.deepEqual([again.exitCode, again.output, again.startupMs], [0, 'again\n', undefined], 'an idle terminal is lent at once');
      assert.deepEqual(routes[1], routes[0], 'the same terminal is used again');
    }
  });

  test('a command line longer than the terminal is wide still reports its output and exit code', async () => {
    const workspace = made({ shellIntegrationTimeoutMs: 15_000 });
    const word = 'x'.repeat(700);
    const result = await workspace.exec(`echo ${word} | wc -c; echo ${word.length}; exit 7`, execOptions());
    assert.deepEqual([result.exitCode, result.output.split('\n').map((line) => line.trim())], [7, ['701', '700', '']]);
  });

  test('without shell integration in time, commands run as child processes, and say why', async () => {
    const routes: CommandRoute[] = [];
    // Its own root, so its terminals (and their failure) are not the ones the other tests share.
    fs.mkdirSync(at('no-integration'), { recursive: true });
    const workspace = new VscodeWorkspace(at('no-integration'), { shellIntegrationTimeoutMs: 0, onCommandRoute: (route) => routes.push(route) });
    workspaces.push(workspace);
    const first = await workspace.exec('echo fallback; exit 2', execOptions());
    const second = await workspace.exec('echo again', execOptions());
    assert.deepEqual([first.exitCode, first.output, second.exitCode, second.output], [2, 'fallback\n', 0, 'again\n']);
    const reason = 'shell integration did not activate in the Crow terminal within 0s';
    assert.deepEqual(routes, [
      { kind: 'process', reason },
      { kind: 'process', reason },
    ]);
  });

  test('commands running at the same time each get their own terminal', async () => {
    const routes: CommandRoute[] = [];
    const workspace = made({ shellIntegrationTimeoutMs: 15_000, onCommandRoute: (route) => routes.push(route) });
    const results = await Promise.all(
      ['one', 'two', 'three'].map((word) => workspace.exec(`echo ${word}; exit ${word.length}`, execOptions())),
    );
    assert.deepEqual(
      results.map((result) => [result.exitCode, result.output]),
      [
        [3, 'one\n'],
        [3, 'two\n'],
        [5, 'three\n'],
      ],
    );
    const terminals = routes.flatMap((route) => (route.kind === 'terminal' ? [route.terminal] : []));
    assert.equal(new Set(terminals).size, terminals.length, `no terminal runs two commands at once: ${terminals.join(', ')}`);
  });

  test('a command is stopped on abort and on timeout, whichever way it runs', async () => {
    const workspace = made({ shellIntegrationTimeoutMs: 15_000, killGraceMs: 1_000 });
    const controller = new AbortController();
    // A background child in the command's process group must go too, as with a child process.
    const aborted = await workspace.exec(`sleep 30 & echo $! > ${sub}/bg.pid; echo started; sleep 30; echo never`, {
      timeoutMs: 60_000,
      signal: controller.signal,
      onOutput: (chunk) => chunk.includes('started') && controller.abort(),
    });
    assert.deepEqual([aborted.aborted, aborted.timedOut, aborted.exitCode], [true, false, null]);
    assert.ok(!aborted.output.includes('never'));
    const background = Number(fs.readFileSync(at('bg.pid'), 'utf8'));
    assert.equal(running(background), false, 'the background child was stopped');

    const timedOut = await workspace.exec('sleep 30', execOptions({ timeoutMs: 300 }));
    assert.deepEqual([timedOut.timedOut, timedOut.aborted, timedOut.exitCode], [true, false, null]);
    const next = await workspace.exec('echo ready', execOptions());
    assert.deepEqual([next.exitCode, next.output], [0, 'ready\n'], 'the next command runs normally');
  });

  test('with the sandbox on, the Crow terminal runs a command that writes only inside the workspace and is stopped whole', async function () {
    const probe = probeSandbox();
    if (!probe.available) {
      console.log(`      (skipped: the sandbox cannot run here: ${probe.reason})`);
      this.skip();
    }
    const routes: CommandRoute[] = [];
    const workspace = made({ shellIntegrationTimeoutMs: 15_000, onCommandRoute: (route) => routes.push(route) });
    workspace.useSandbox({ mode: 'required', protectedPaths: [], network: false, hiddenVariables: [] });
    assert.equal(workspace.sandboxed, true);
    const result = await workspace.exec(
      `echo in > ${sub}/made.txt; { echo out > ${outside}/escaped.txt; } 2>/dev/null || echo refused; mkdir .crow 2>/dev/null || echo blocked; exit 5`,
      execOptions(),
    );
    console.log(`      (command route: ${JSON.stringify(routes[0])})`);
    assert.deepEqual([result.exitCode, result.output], [5, 'refused\nblocked\n']);
    assert.equal(fs.readFileSync(at('made.txt'), 'utf8'), 'in\n');
    assert.deepEqual(fs.readdirSync(outside), ['secret.txt'], 'nothing was written outside');
    assert.equal(fs.existsSync(path.join(root, '.crow')), false, 'the blocked .crow is gone again');

    const marker = `1000.${process.pid}7`;
    const controller = new AbortController();
    const aborted = await workspace.exec(`nohup sleep ${marker} >/dev/null 2>&1 & echo started; sleep ${marker}`, {
      timeoutMs: 60_000,
      signal: controller.signal,
      onOutput: (chunk) => chunk.includes('started') && controller.abort(),
    });
    assert.equal(aborted.aborted, true);
    const deadline = Date.now() + 5_000;
    while (sleepers(marker) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(sleepers(marker), 0, 'the background child went with the command');
  });

  test('paths outside the workspace folders are refused: .., absolute, and symlinks out', async () => {
    const workspace = made({ commands: 'process' });
    fs.symlinkSync(outside, at('link-out'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), at('secret-link.txt'));
    const refusals: Array<[string, Promise<unknown>]> = [
      ['..', workspace.readFile('../secret.txt')],
      ['absolute', workspace.readFile(path.join(outside, 'secret.txt'))],
      ['folder link', workspace.readFile(`${sub}/link-out/secret.txt`)],
      ['file link', workspace.stat(`${sub}/secret-link.txt`)],
      ['write through a link', workspace.writeFile(`${sub}/link-out/new.txt`, 'pwned')],
      ['write outside', workspace.writeFile(path.join(outside, 'new.txt'), 'pwned')],
      ['cwd outside', workspace.exec('pwd', execOptions({ cwd: `${sub}/link-out` }))],
      ['search outside', workspace.grep({ pattern: 'secret', path: outside, maxMatches: 5, signal: signal() })],
    ];
    for (const [what, action] of refusals) {
      await assert.rejects(action, (err: unknown) => {
        assert.ok(err instanceof WorkspaceError, `${what}: expected a WorkspaceError, got ${String(err)}`);
        assert.match(err.message, /must stay inside the workspace/, what);
        return true;
      });
    }
    assert.deepEqual(fs.readdirSync(outside), ['secret.txt'], 'nothing was written outside');
    write('inside.txt', 'inside');
    assert.equal(text(await workspace.readFile(`${sub}/../${sub}/inside.txt`)), 'inside', '.. that stays inside is fine');
  });
});
