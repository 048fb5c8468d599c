import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ExitStatusScanner,
  HeadTailText,
  TerminalTextCleaner,
  runWords,
  terminalCommandLine,
  terminalRunnerEnvironment,
} from '../../../../src/adapters/vscode/workspace/terminal-output';
import { inheritingCommandLine } from '../../../../src/tools/command-sandbox';
import { NodeWorkspace } from '../../../../src/tools/node-workspace';
import { describeSandboxed, hostFolderOutsideTmp } from '../../../support/sandbox';
import { tempDir } from '../../tools/temp-workspace';

/**
 * What an interactive bash (history expansion on, as in a terminal) with a
 * Crow terminal's environment does with the line typed for `command` at
 * its prompt: the text a terminal would show, and the exit status the line
 * reports in its output.
 */
function typedIntoBash(command: string, cwd: string, prefix: readonly string[] = []): { shown: string; reported: number | undefined } {
  const { dir, remove } = tempDir('crow-words-');
  try {
    const wordsFile = path.join(dir, 'words');
    fs.writeFileSync(wordsFile, runWords(cwd, prefix));
    const env = { ...process.env, ...terminalRunnerEnvironment(wordsFile) };
    const result = spawnSync('bash', ['--norc', '--noprofile', '-i'], { input: `${terminalCommandLine(command)}\n`, encoding: 'utf8', env });
    return { shown: cleaned(result.stdout), reported: new ExitStatusScanner().push(result.stdout) };
  } finally {
    remove();
  }
}

function cleaned(...chunks: string[]): string {
  const cleaner = new TerminalTextCleaner();
  return chunks.map((chunk) => cleaner.push(chunk)).join('') + cleaner.end();
}

describe('Commands typed into the Crow terminal', () => {
  it('runs the command as written, quotes, newlines and ! included, in the working folder', () => {
    const { dir, remove } = tempDir('crow-term-');
    try {
      const command = `echo "it's $((6 * 7))"!\nprintf '%s\\n' 'tab\there' "back\\\\slash"\nexit 3`;
      assert.deepEqual(typedIntoBash(command, dir), {
        shown: `it's 42!\ntab\there\nback\\slash\n`,
        reported: 3,
      });
      assert.deepEqual(typedIntoBash('pwd', dir), { shown: `${dir}\n`, reported: 0 });
      assert.deepEqual(typedIntoBash('true', path.join(dir, 'missing')).reported, 1);
      // Neither the runner nor its words file reach the command.
      assert.deepEqual(typedIntoBash('env | grep -ci crow.run; true', dir).shown, '0\n');
    } finally {
      remove();
    }
  });

  it('shows the command as written, on one line, and gives it no input', () => {
    assert.equal(terminalCommandLine('node test.js'), "crow-run 'node test.js'");
    const line = terminalCommandLine('read answer; echo "got:$answer"\necho two');
    assert.equal(line, `crow-run $'read answer; echo "got:$answer"\\necho two'`);
    const { dir, remove } = tempDir('crow-term-');
    try {
      assert.equal(typedIntoBash('read answer; echo "got:$answer"\necho two', dir).shown, 'got:\ntwo\n');
      // A plain line is single-quoted: no history expansion (!), no $ or ` reaching the terminal's own shell.
      assert.equal(terminalCommandLine('echo "hi!there" $HOME `true`'), `crow-run 'echo "hi!there" $HOME \`true\`'`);
      assert.equal(typedIntoBash('echo "hi!there" "$((1 + 1))"', dir).shown, 'hi!there 2\n');
    } finally {
      remove();
    }
  });
});

describe('The exit status a command line reports in its output', () => {
  it('is found in the raw output, also when split across chunks', () => {
    const scanner = new ExitStatusScanner();
    assert.equal(scanner.push('output\r\n\x1b]77'), undefined);
    assert.equal(scanner.push('67;12'), undefined);
    assert.equal(scanner.push('7\x07\x1b]633;D\x07'), 127);
  });

  it('is not taken from other escape sequences or from text that only looks alike', () => {
    const scanner = new ExitStatusScanner();
    assert.equal(scanner.push('\x1b]633;D;0\x07 ]7767;5 \x1b]7767;x\x07'), undefined);
  });
});

describe('Terminal output as plain text', () => {
  it('drops colours, cursor moves and shell-integration marks', () => {
    assert.equal(cleaned('\x1b[1;31mred\x1b[0m plain\x1b[K\r\n'), 'red plain\n');
    assert.equal(cleaned('\x1b]633;C\x07out\r\n\x1b]633;D;0\x1b\\'), 'out\n');
    assert.equal(cleaned('\x1b(Bascii\x1b=\n'), 'ascii\n');
  });

  it('reassembles escape sequences and CRLFs split across chunks', () => {
    assert.equal(cleaned('a\x1b', '[3', '2mb\r', '\nc\x1b]633;', 'P;Cwd=/x\x07d'), 'ab\ncd');
  });

  it('keeps what a line finally shows when a carriage return rewrites it', () => {
    assert.equal(cleaned('10%\r50%\r100%\r\n'), '100%\n');
    assert.equal(cleaned('done\r\r\n'), 'done\n');
    assert.equal(cleaned('keep\r\x1b[32m\n'), 'keep\n');
  });

  it("drops npm's spinner: the cursor to the first column and an erased line redraw it, even cut across chunks", () => {
    // npm 11 draws each frame, then node's cursorTo(0) (ESC[1G) and clearLine(1) (ESC[0K) before the next or before a line of its own.
    const spinner = '⠋\x1b[1G\x1b[0K⠙\x1b[1G\x1b[0K⠹\x1b[1G\x1b[0K';
    assert.equal(cleaned(`${spinner}added 3 packages\r\n${spinner}\r\n`), 'added 3 packages\n\n');
    const cleaner = new TerminalTextCleaner();
    assert.equal(cleaner.push('⠋\x1b[1'), '');
    assert.equal(cleaner.push('G\x1b['), '');
    assert.equal(cleaner.push('0Kup to date\n⠙\x1b[2K'), 'up to date\n');
    assert.equal(cleaner.end(), '');
    assert.equal(cleaned('kept\x1b[K\n50%\x1b[5Gx\n'), 'kept\n50%x\n');
  });

  it('hands out whole lines while streaming and the rest at the end', () => {
    const cleaner = new TerminalTextCleaner();
    assert.equal(cleaner.push('first\r\nsec'), 'first\n');
    assert.equal(cleaner.push('ond'), '');
    assert.equal(cleaner.end(), 'second');
  });

  it('keeps head and tail of long output, counting the bytes left out', () => {
    const cap = new HeadTailText(10);
    cap.push('12345');
    cap.push('abcdé-xyz');
    cap.push('VWXYZ');
    assert.deepEqual(cap.result(), { output: '12345\n[… 10 bytes of output omitted …]\nVWXYZ', omittedBytes: 10 });
    const small = new HeadTailText(10);
    small.push('short');
    assert.deepEqual(small.result(), { output: 'short', omittedBytes: 0 });
  });
});

describeSandboxed('The command line typed into a Crow terminal, with the sandbox on', () => {
  it('runs the command as the child-process route does: scrubbed, in the sandbox, its exit status reported', async () => {
    const { dir, remove } = tempDir();
    const outside = hostFolderOutsideTmp();
    const workspace = new NodeWorkspace(dir, { sandbox: { mode: 'required', protectedPaths: [], network: false, hiddenVariables: ['CORP_LLM_KEY'] } });
    process.env.CORP_LLM_KEY = 'corp-terminal-0123456789';
    const launch = await workspace.commandLaunch(dir);
    try {
      const command = `echo in > made.txt; echo out > ${outside}/x 2>/dev/null || echo refused; echo "key:$CORP_LLM_KEY"; exit 4`;
      const { shown, reported } = typedIntoBash(command, dir, inheritingCommandLine(launch, []));
      assert.equal(shown, 'refused\nkey:\n');
      assert.equal(reported, 4);
      assert.equal(fs.readFileSync(path.join(dir, 'made.txt'), 'utf8'), 'in\n');
      assert.deepEqual(fs.readdirSync(outside), []);
    } finally {
      launch.release();
      delete process.env.CORP_LLM_KEY;
      fs.rmSync(outside, { recursive: true, force: true });
      remove();
    }
  });

  it('gives the command no capability and none of the descriptors the terminal\'s shell holds open', async () => {
    const { dir, remove } = tempDir();
    const outside = hostFolderOutsideTmp();
    const workspace = new NodeWorkspace(dir, { sandbox: { mode: 'required', protectedPaths: [], network: false, hiddenVariables: [] } });
    const launch = await workspace.commandLaunch(dir);
    try {
      const wordsFile = path.join(dir, 'words');
      fs.writeFileSync(wordsFile, runWords(dir, inheritingCommandLine(launch, [])));
      const command = 'grep -E "^Cap(Eff|Bnd)" /proc/self/status; ls /proc/self/fd | tr "\\n" " "; echo; echo through > /proc/self/fd/40/fd.txt';
      // The person's shell in that terminal opened a host folder on 40 (e.g. in their .bashrc).
      const input = `exec 40<'${outside}'\n${terminalCommandLine(command)}\n`;
      const result = spawnSync('bash', ['--norc', '--noprofile', '-i'], { input, encoding: 'utf8', env: { ...process.env, ...terminalRunnerEnvironment(wordsFile) } });
      const shown = cleaned(result.stdout);
      assert.match(shown, /CapEff:\s+0+\nCapBnd:\s+0+\n/);
      assert.match(shown, /^0 1 2 3 $/m, 'ls sees its own listing (3), nothing inherited');
      assert.deepEqual(fs.readdirSync(outside), []);
    } finally {
      launch.release();
      fs.rmSync(outside, { recursive: true, force: true });
      remove();
    }
  });
});
