/**
 * The shell the bash tool runs a command line with, chosen from what a
 * fake file system holds: Git Bash on Windows (never WSL's bash.exe, never
 * PowerShell), bash else sh elsewhere.
 */
import assert from 'node:assert/strict';
import { chooseShell, type ShellChoice, terminalShell } from '../../../src/tools/command-shell';
import { runCommand } from '../../../src/tools/node-exec';

const choose = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv, files: string[]): ShellChoice => {
  const present = new Set(files.map((file) => file.toLowerCase()));
  return chooseShell({ platform, env, exists: (file) => present.has(file.toLowerCase()) });
};

const GIT_BASH = 'C:\\Program Files\\Git\\bin\\bash.exe';
const WSL_BASH = 'C:\\Windows\\System32\\bash.exe';
const WINDOWS = { SystemRoot: 'C:\\Windows', ProgramFiles: 'C:\\Program Files' };

describe('the shell for commands', () => {
  it('on Linux and macOS: bash from PATH, else sh', () => {
    assert.deepEqual(choose('linux', { PATH: '/usr/local/bin:/usr/bin' }, ['/usr/bin/bash']), { shell: '/usr/bin/bash' });
    assert.deepEqual(choose('darwin', { PATH: '/opt/homebrew/bin:/bin' }, ['/opt/homebrew/bin/bash', '/bin/bash']), { shell: '/opt/homebrew/bin/bash' });
    assert.deepEqual(choose('linux', { PATH: '/usr/bin' }, []), { shell: 'sh' });
  });

  it('on Windows: the Git Bash beside git.exe on PATH, whichever folder of Git for Windows PATH names', () => {
    for (const gitFolder of ['D:\\Tools\\Git\\cmd', 'D:\\Tools\\Git\\bin', 'D:\\Tools\\Git\\mingw64\\bin']) {
      const env = { ...WINDOWS, Path: `${WSL_BASH.replace('\\bash.exe', '')};${gitFolder}` };
      const files = [`${gitFolder}\\git.exe`, 'D:\\Tools\\Git\\bin\\bash.exe', WSL_BASH, GIT_BASH];
      assert.deepEqual(choose('win32', env, files), { shell: 'D:\\Tools\\Git\\bin\\bash.exe' }, gitFolder);
    }
  });

  it('on Windows: the usual install folders next, then bash.exe on PATH outside System32 and WindowsApps', () => {
    assert.deepEqual(choose('win32', { ...WINDOWS, PATH: 'C:\\Windows\\System32' }, [WSL_BASH, GIT_BASH]), { shell: GIT_BASH });
    const local = 'C:\\Users\\ana\\AppData\\Local\\Programs\\Git\\bin\\bash.exe';
    assert.deepEqual(choose('win32', { ...WINDOWS, LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local' }, [local]), { shell: local });
    const msys = 'C:\\msys64\\usr\\bin\\bash.exe';
    assert.deepEqual(choose('win32', { ...WINDOWS, PATH: 'C:\\WINDOWS\\system32;C:\\msys64\\usr\\bin' }, [WSL_BASH, msys]), { shell: msys });
  });

  it("on Windows: never WSL's bash.exe, never PowerShell; without Git Bash, an error saying how to get it", () => {
    const apps = 'C:\\Users\\ana\\AppData\\Local\\Microsoft\\WindowsApps';
    const env = { ...WINDOWS, PATH: `C:\\Windows\\System32;C:\\Windows\\SysWOW64;${apps};C:\\Windows\\System32\\WindowsPowerShell\\v1.0` };
    const files = [WSL_BASH, 'C:\\Windows\\SysWOW64\\bash.exe', `${apps}\\bash.exe`, 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe'];
    const choice = choose('win32', env, files);
    assert.ok('problem' in choice, JSON.stringify(choice));
    assert.match(choice.problem, /Install Git for Windows \(https:\/\/gitforwindows\.org\), or set CROW_GIT_BASH_PATH to its bash\.exe/);
  });

  it('on Windows: CROW_GIT_BASH_PATH wins; one that names nothing is an error, not a reason to pick another', () => {
    const mine = 'E:\\portable\\git\\bin\\bash.exe';
    assert.deepEqual(choose('win32', { ...WINDOWS, CROW_GIT_BASH_PATH: mine }, [mine, GIT_BASH]), { shell: mine });
    assert.deepEqual(choose('win32', { ...WINDOWS, crow_git_bash_path: mine }, [mine]), { shell: mine }, 'Windows reads variable names in any case');
    const missing = choose('win32', { ...WINDOWS, CROW_GIT_BASH_PATH: 'E:\\gone\\bash.exe' }, [GIT_BASH]);
    assert.ok('problem' in missing);
    assert.match(missing.problem, /CROW_GIT_BASH_PATH names E:\\gone\\bash\.exe, which is not there/);
  });

  it('on Windows: never a bash.exe or git.exe found through a relative PATH entry (the workspace could plant it)', () => {
    const env = { SystemRoot: 'C:\\Windows', PATH: 'tools\\bin;.;\\tools\\bin' };
    const planted = ['tools\\bin\\git.exe', 'tools\\bin\\bash.exe', '.\\bash.exe', '\\tools\\bin\\bash.exe'];
    assert.ok('problem' in choose('win32', env, planted));
    assert.deepEqual(choose('win32', { PATH: 'D:\\Git\\cmd' }, ['D:\\Git\\cmd\\git.exe', 'D:\\Git\\bin\\bash.exe']), { shell: 'D:\\Git\\bin\\bash.exe' });
  });

  it('ignores CROW_GIT_BASH_PATH off Windows: commands there run with bash or sh as before', () => {
    assert.deepEqual(choose('linux', { PATH: '/usr/bin', CROW_GIT_BASH_PATH: '/tmp/evil' }, ['/tmp/evil', '/usr/bin/bash']), { shell: '/usr/bin/bash' });
  });

  it("gives the editor's and an ACP client's terminals the same shell: bash as they find it, Git Bash on Windows, or why not", () => {
    assert.deepEqual(terminalShell('linux', { PATH: '/usr/bin' }), { shell: 'bash' });
    assert.deepEqual(terminalShell('darwin', {}), { shell: 'bash' });
    const windows = terminalShell('win32', { PATH: 'C:\\Windows\\System32', SystemRoot: 'C:\\Windows' });
    assert.ok('problem' in windows && /Git Bash/.test(windows.problem), 'this machine has no Git Bash: the terminal route says so');
  });

  it('runs a command with the chosen shell here (Linux): bash from PATH', async () => {
    const result = await runCommand('echo "$BASH_VERSION" | cut -c1', {
      cwd: process.cwd(),
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      maxOutputChars: 1000,
      killGraceMs: 500,
    });
    assert.equal(result.exitCode, 0);
    assert.match(result.output, /^[0-9]\n$/, 'bash ran it');
  });
});
