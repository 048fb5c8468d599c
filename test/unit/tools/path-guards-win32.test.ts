/**
 * Every path guard judged with another platform's path rules, on this Linux
 * machine: Windows (`path.win32`, case-insensitive names, streams, device
 * names, 8.3 short names, `\\?\` prefixes) and macOS (case-insensitive, NFC
 * and NFD one name). Each guard's pure core takes the semantics; nothing
 * here touches a disk, because another platform's file system cannot be
 * asked from Linux (see docs/platforms.md for what has run where).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyTarget } from '../../../src/host/apply-code';
import { rootsOf } from '../../../src/mcp/client-features';
import { TrustStore } from '../../../src/config/trust-store';
import { ConfinedFolder, OutsideFolderError } from '../../../src/tools/confined-folder';
import { pathGlob, platformGlob } from '../../../src/tools/glob-pattern';
import { walkNarrowingArgs } from '../../../src/tools/glob-walk';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { PermissionGate } from '../../../src/tools/permissions';
import { isHomeConfig, isProtectedName, ProtectedPaths } from '../../../src/tools/protected-paths';
import { containment } from '../../../src/tools/workspace-containment';
import {
  DARWIN_PATHS,
  mayBeShortName,
  namesWithin,
  pathSemanticsOf,
  POSIX_PATHS,
  WIN32_PATHS,
  windowsNameProblem,
  withoutDevicePrefix,
} from '../../../src/vocabulary/path-semantics';
import { isReallyWithin, isWithin } from '../../../src/vocabulary/real-paths';
import { workspaceKey } from '../../../src/vocabulary/workspace-key';
import { tempDir } from './temp-workspace';

const ROOT = 'C:\\Users\\ana\\project';

describe('path guards with Windows and macOS path rules', () => {
  it('chooses the rules from the platform in one place: darwin and win32 fold case, Linux does not', () => {
    assert.equal(pathSemanticsOf('win32'), WIN32_PATHS);
    assert.equal(pathSemanticsOf('darwin'), DARWIN_PATHS);
    assert.equal(pathSemanticsOf('linux'), POSIX_PATHS);
    assert.equal(WIN32_PATHS.path, path.win32);
    assert.deepEqual([WIN32_PATHS.foldCase, DARWIN_PATHS.foldCase, POSIX_PATHS.foldCase], [true, true, false]);
  });

  describe('workspace containment (NodeWorkspace.resolve, ConfinedFolder, the journal restore)', () => {
    const inside = (target: string) => containment(ROOT, path.win32.resolve(ROOT, withoutDevicePrefix(target, WIN32_PATHS)), WIN32_PATHS);
    const allowed: [string, string[]][] = [
      ['src\\app.ts', ['src', 'app.ts']],
      ['src/app.ts', ['src', 'app.ts']],
      ['src/lib\\util.ts', ['src', 'lib', 'util.ts']],
      ['c:\\users\\ANA\\Project\\src\\a.ts', ['src', 'a.ts']],
      ['C:\\Users\\ana\\project', []],
      ['\\\\?\\C:\\Users\\ana\\project\\src\\a.ts', ['src', 'a.ts']],
      ['src\\..\\docs\\readme.md', ['docs', 'readme.md']],
      ['...foo', ['...foo']],
    ];
    for (const [target, names] of allowed) {
      it(`allows ${target}`, () => assert.deepEqual(inside(target), { inside: true, names }));
    }
    const outside = [
      'D:\\Users\\ana\\project\\src\\a.ts',
      '..\\other\\a.ts',
      '..\\..\\..\\..\\..\\Windows\\System32\\drivers\\etc\\hosts',
      'C:\\Users\\ana\\project2\\a.ts',
      '\\\\server\\share\\project\\a.ts',
      '\\\\?\\UNC\\server\\share\\a.ts',
      '\\\\?\\D:\\a.ts',
      '\\Windows\\win.ini',
      'C:/Windows/win.ini',
    ];
    for (const target of outside) {
      it(`refuses ${target} as outside`, () => {
        const result = inside(target);
        assert.equal(result.inside, false);
        assert.equal(!result.inside && result.outside, true);
      });
    }
    const notFiles = ['NUL', 'src\\con', 'CON.txt', 'aux.txt', 'com1', 'LPT9.log', 'nul ', 'Con.tar.gz', 'conout$', 'src\\a.ts:hidden', 'a.ts::$DATA', 'x\\...', 'x\\ .', 'a<b', 'what?.txt'];
    for (const target of notFiles) {
      it(`refuses ${JSON.stringify(target)} as no plain file`, () => {
        const result = inside(target);
        assert.equal(result.inside, false, JSON.stringify(result));
        assert.equal(!result.inside && result.outside, false);
      });
    }
    it('keeps Linux as it was: names are bytes, a colon or NUL is a file name, case matters', () => {
      assert.deepEqual(containment('/home/ana/p', '/home/ana/p/NUL', POSIX_PATHS), { inside: true, names: ['NUL'] });
      assert.deepEqual(containment('/home/ana/p', '/home/ana/p/a:b', POSIX_PATHS), { inside: true, names: ['a:b'] });
      assert.deepEqual(containment('/home/ana/p', '/home/ana/p/a\\b', POSIX_PATHS), { inside: true, names: ['a\\b'] });
      assert.equal(containment('/home/ana/p', '/home/ana/P/x', POSIX_PATHS).inside, false);
    });
    it('folds only ASCII case when it compares folders: a name NTFS keeps apart is outside, never taken for the workspace', () => {
      // The Kelvin sign lower-cases to "k" in JavaScript (and path.win32.relative), but NTFS's upcase table leaves it apart from K.
      assert.equal(containment('C:\\work', 'C:\\wor\u212a\\x', WIN32_PATHS).inside, false);
      assert.equal(containment('C:\\Stra\u00dfe', 'C:\\STRASSE\\x', WIN32_PATHS).inside, false);
      assert.equal(containment('C:\\\u00c9t\u00e9', 'C:\\\u00e9t\u00e9\\x', WIN32_PATHS).inside, false, 'non-ASCII case is told apart: refused, never wrongly let in');
      // On APFS the Kelvin sign is K: its canonical form (NFC) is K, and APFS compares canonical forms.
      assert.equal(containment('/Users/\u212aim', '/Users/kim/x', DARWIN_PATHS).inside, true);
    });
    it('on a UNC workspace, `..` stops at the share and another share is outside', () => {
      const share = '\\\\server\\share\\project';
      assert.deepEqual(containment(share, path.win32.resolve(share, 'a\\b.txt'), WIN32_PATHS), { inside: true, names: ['a', 'b.txt'] });
      assert.deepEqual(containment(share, '\\\\SERVER\\Share\\Project\\x', WIN32_PATHS), { inside: true, names: ['x'] });
      assert.equal(containment(share, path.win32.resolve(share, '..\\..\\..\\secret'), WIN32_PATHS).inside, false);
      assert.equal(containment(share, '\\\\server\\other\\project\\x', WIN32_PATHS).inside, false);
      assert.deepEqual(containment(share, '\\\\?\\UNC\\server\\share\\project\\x', WIN32_PATHS), { inside: true, names: ['x'] });
    });
    it('a workspace whose real path came back with a \\\\?\\ prefix still holds its files', () => {
      assert.deepEqual(containment('\\\\?\\C:\\Users\\ana\\project', 'C:\\Users\\ana\\project\\a.ts', WIN32_PATHS), { inside: true, names: ['a.ts'] });
    });
    it('the confined folder (every write, and the restore that never follows a link) refuses the same paths', () => {
      const folder = new ConfinedFolder(ROOT, 'never', undefined, WIN32_PATHS);
      assert.equal(folder.relative('src\\lib/util.ts'), 'src/lib/util.ts');
      assert.equal(folder.relative('C:\\USERS\\ana\\PROJECT\\src\\a.ts'), 'src/a.ts');
      for (const target of ['D:\\x', '..\\x', '\\\\server\\share\\x', 'NUL', 'a.txt:stream', 'COM1.txt']) {
        assert.throws(() => folder.relative(target), OutsideFolderError, target);
      }
      assert.throws(() => folder.relative('aux.txt'), /device name on Windows \(AUX\)/);
    });
    it('isWithin and isReallyWithin (hooks, restore links) compare as the platform does', () => {
      assert.equal(isWithin(ROOT, 'c:\\users\\ana\\project\\x', WIN32_PATHS), true);
      assert.equal(isWithin(ROOT, 'D:\\users\\ana\\project\\x', WIN32_PATHS), false);
      assert.equal(isReallyWithin(ROOT, '\\\\?\\C:\\Users\\ana\\project\\.git', WIN32_PATHS), true);
      assert.equal(isWithin('/Users/ana/project', '/users/ANA/Project/src', DARWIN_PATHS), true);
      assert.equal(isWithin('/Users/ana/project', '/users/ANA/Project/src', POSIX_PATHS), false);
    });
  });

  describe('macOS: case and Unicode normalisation', () => {
    const nfc = '/Users/ana/caf\u00e9';
    const nfd = '/Users/ana/cafe\u0301';
    it('a workspace named in NFC holds a path written in NFD, and the other way round', () => {
      assert.deepEqual(containment(nfc, `${nfd}/src/a.ts`, DARWIN_PATHS), { inside: true, names: ['src', 'a.ts'] });
      assert.deepEqual(containment(nfd, `${nfc}/src/a.ts`, DARWIN_PATHS), { inside: true, names: ['src', 'a.ts'] });
      assert.deepEqual(containment('/Users/Ana/Project', '/users/ana/project/x', DARWIN_PATHS), { inside: true, names: ['x'] });
    });
    it('on Linux NFC and NFD are two folders, so the other one is outside', () => {
      assert.equal(containment(nfc, `${nfd}/src/a.ts`, POSIX_PATHS).inside, false);
    });
    it('protects .GIT, .Crow and .VSCODE, and Library in the home, whatever their case', () => {
      const paths = new ProtectedPaths({ root: '/Users/ana', home: '/Users/ana', semantics: DARWIN_PATHS });
      assert.deepEqual(
        paths.find(['.GIT/config', 'p/.Crow/config.toml', '.VSCODE/tasks.json', 'library/LaunchAgents/x.plist', 'Library/Preferences/y'].map((p) => ({ path: p }))),
        ['.GIT/config', 'p/.Crow/config.toml', '.VSCODE/tasks.json', 'library/LaunchAgents/x.plist', 'Library/Preferences/y'],
      );
      assert.deepEqual(paths.find([{ path: 'Documents/notes.md' }]), []);
      assert.equal(isHomeConfig('LIBRARY', DARWIN_PATHS), true);
    });
    it('the session and snapshot key of a folder is one for both spellings', () => {
      assert.equal(workspaceKey(nfc, DARWIN_PATHS), workspaceKey(nfd, DARWIN_PATHS));
      assert.equal(workspaceKey('/Users/Ana/P', DARWIN_PATHS).slice(-16), workspaceKey('/users/ana/p', DARWIN_PATHS).slice(-16));
      assert.notEqual(workspaceKey(nfc, POSIX_PATHS), workspaceKey(nfd, POSIX_PATHS));
    });
  });

  describe('protected paths', () => {
    const paths = () => new ProtectedPaths({ root: ROOT, home: 'C:\\Users\\ana', configHome: 'C:\\Users\\ana\\.config\\crow-agent', semantics: WIN32_PATHS });
    const found = (...targets: string[]) => paths().find(targets.map((target) => ({ path: target })));
    const protectedTargets = [
      '.git\\config',
      '.GIT\\hooks\\pre-commit',
      '.Crow\\config.toml',
      '.VSCODE\\tasks.json',
      '.git.\\config',
      '.git \\config',
      '.git. . \\hooks\\x',
      '.git::$INDEX_ALLOCATION\\hooks\\pre-commit',
      '.git:$I30:$INDEX_ALLOCATION\\config',
      '.vscode:stream',
      'GIT~1\\config',
      'git~2\\hooks\\pre-commit',
      'VSCODE~1\\settings.json',
      'CROW~1\\config.toml',
      'GI4F2A~1\\config',
      'vendor\\lib\\.Git\\config',
      'src/../.git/config',
      'src\\..\\.GIT\\config',
      'C:\\USERS\\ANA\\PROJECT\\.git\\config',
      '\\\\?\\C:\\Users\\ana\\project\\.git\\config',
      '.g\u0131t\\config',
      '.v\u017fcode\\tasks.json',
    ];
    for (const target of protectedTargets) {
      it(`asks for ${JSON.stringify(target)}`, () => assert.deepEqual(found(target), [target]));
    }
    const plain = ['src\\git.ts', '.github\\workflows\\ci.yml', '.gitignore', 'docs\\.crowd\\x', 'GITHUB~1\\x', 'src\\a~1.ts', 'X~1\\y'];
    for (const target of plain) {
      it(`does not ask for ${JSON.stringify(target)}`, () => assert.deepEqual(found(target), []));
    }
    it("protects the user's config folder and the home's AppData and dot entries, in any case and from another spelling", () => {
      const home = new ProtectedPaths({ root: 'C:\\Users\\ana', home: 'C:\\Users\\ana', configHome: 'C:\\Users\\ana\\.config\\crow-agent', semantics: WIN32_PATHS });
      const targets = ['AppData\\Roaming\\Code\\User\\settings.json', 'appdata\\Local\\x', '.ssh\\authorized_keys', '.CONFIG\\CROW-AGENT\\config.toml', '~\\.gitconfig'];
      assert.deepEqual(home.find(targets.map((target) => ({ path: target, tilde: true }))), targets);
      assert.deepEqual(home.find([{ path: 'Documents\\a.txt' }]), []);
      assert.deepEqual(paths().find([{ path: 'c:\\users\\ana\\.config\\crow-agent\\config.toml' }]), ['c:\\users\\ana\\.config\\crow-agent\\config.toml']);
    });
    it("protects a guarded folder however its non-ASCII letters' case is written (the wide fold: asked more, never less)", () => {
      const guarded = new ProtectedPaths({ root: 'C:\\Users\\\u00c9mile\\p', home: 'D:\\h', configHome: 'C:\\Users\\\u00c9mile\\.config\\crow-agent', semantics: WIN32_PATHS });
      assert.deepEqual(guarded.find([{ path: 'C:\\USERS\\\u00e9MILE\\.config\\crow-agent\\config.toml' }]), ['C:\\USERS\\\u00e9MILE\\.config\\crow-agent\\config.toml']);
    });
    it('reads a command\'s paths as Git Bash does too: /c/Users/... and /cygdrive/c/... are C:\\Users\\...', () => {
      const config = '/c/Users/ana/.config/crow-agent/config.toml';
      assert.deepEqual(found(config, '/cygdrive/C/Users/ana/.config/crow-agent/x', '/c/Users/ana/project/src/a.ts'), [config, '/cygdrive/C/Users/ana/.config/crow-agent/x']);
      assert.deepEqual(paths().find([{ path: 'config.toml' }], [{ path: '/c/users/ana/.config/crow-agent' }]), ['config.toml']);
      const posix = new ProtectedPaths({ root: '/home/ana/p', home: '/home/ana', configHome: '/home/ana/.config/crow-agent', semantics: POSIX_PATHS });
      assert.deepEqual(posix.find([{ path: '/c/home/ana/.config/crow-agent/x' }]), [], 'on Linux /c is a folder like any other');
    });
    it('asks for a command that writes there through the gate, every time', async () => {
      const gate = new PermissionGate({ policy: { rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'allow' }, allowCommands: [] }, protectedPaths: paths() });
      const request = { tool: 'bash', callId: 'c', agent: 'a', category: 'execute' as const, title: 'Run', paths: [], alwaysScope: 'x' };
      for (const command of ['echo x > /c/Users/ana/.config/crow-agent/config.toml', 'cd /c/Users/ana/project && echo x > .GIT/config', 'cp evil GIT~1/hooks/pre-commit']) {
        const verdict = await gate.authorize({ ...request, command }, new AbortController().signal);
        assert.equal(verdict.allowed, false, command);
        assert.match(!verdict.allowed ? verdict.reason : '', /a protected path/, command);
      }
    });
    it('judges only the part below the root, on a workspace kept inside a .vscode folder', () => {
      const nested = new ProtectedPaths({ root: 'C:\\Users\\ana\\.vscode\\extensions\\mine', home: 'D:\\home', semantics: WIN32_PATHS });
      assert.deepEqual(nested.find([{ path: 'src\\extension.ts' }]), []);
      assert.deepEqual(nested.find([{ path: '.VSCode\\launch.json' }]), ['.VSCode\\launch.json']);
    });
    it('short names and streams count only on Windows; trailing dots and case count everywhere, as before', () => {
      assert.equal(isProtectedName('GIT~1', WIN32_PATHS), true);
      assert.equal(isProtectedName('GIT~1', POSIX_PATHS), false);
      assert.equal(isProtectedName('.git::$INDEX_ALLOCATION', POSIX_PATHS), false);
      assert.equal(isProtectedName('.GIT.', POSIX_PATHS), true);
      assert.equal(mayBeShortName('VSCODE~1', '.vscode'), true);
      assert.equal(mayBeShortName('VSCODE~12', '.vscode'), true);
      assert.equal(mayBeShortName('VSCODE', '.vscode'), false);
      assert.equal(mayBeShortName('AB1234~1', '.git'), false);
    });
  });

  describe('Apply (a code block written to a file the person names)', () => {
    it('names the file relative to the root with forward slashes, however it is written', () => {
      assert.equal(applyTarget(ROOT, 'src\\app.ts', WIN32_PATHS), 'src/app.ts');
      assert.equal(applyTarget(ROOT, 'C:/users/ana/project/src/app.ts', WIN32_PATHS), 'src/app.ts');
    });
    for (const target of ['D:\\evil.ts', '..\\evil.ts', '\\\\server\\share\\evil.ts', '\\\\?\\D:\\x', 'C:\\Users\\ana\\project', '\\Windows\\x.ts']) {
      it(`refuses ${target} as outside`, () => assert.throws(() => applyTarget(ROOT, target, WIN32_PATHS), /is outside the workspace/));
    }
    for (const target of ['CON', 'src\\nul.ts', 'a.ts:hidden']) {
      it(`refuses ${target} as no plain file`, () => assert.throws(() => applyTarget(ROOT, target, WIN32_PATHS), /cannot be written/));
    }
  });

  describe('folder trust and session keys', () => {
    let folder: { dir: string; remove: () => void };
    beforeEach(() => (folder = tempDir('crow-trust-win-')));
    afterEach(() => folder.remove());

    it('an answer for C:\\Work holds for c:\\work and \\\\?\\C:\\Work; where spellings disagree, "untrusted" wins', () => {
      const store = new TrustStore({ XDG_CONFIG_HOME: folder.dir }, WIN32_PATHS);
      store.remember('C:\\Work', 'f1', 'trusted');
      assert.equal(store.lookup('c:\\work', 'f1'), 'trusted');
      assert.equal(store.lookup('\\\\?\\C:\\WORK', 'f1'), 'trusted');
      assert.equal(store.lookup('c:\\work', 'f2'), 'changed');
      assert.equal(store.lookup('D:\\Work', 'f1'), 'unknown');
      // A file written by hand (or by an older Crow) holding two spellings: the stricter answer wins.
      const file = JSON.parse(fs.readFileSync(store.path, 'utf8'));
      file.folders['c:\\WORK'] = { answer: 'untrusted', fingerprint: 'f1', at: new Date().toISOString() };
      fs.writeFileSync(store.path, JSON.stringify(file));
      assert.equal(store.lookup('C:\\Work', 'f1'), 'untrusted');
      assert.equal(store.forget('C:\\work'), true);
      assert.equal(store.lookup('C:\\Work', 'f1'), 'unknown');
    });
    it('on Linux two spellings stay two folders', () => {
      const store = new TrustStore({ XDG_CONFIG_HOME: folder.dir }, POSIX_PATHS);
      store.remember('/home/ana/Work', 'f1', 'trusted');
      assert.equal(store.lookup('/home/ana/work', 'f1'), 'unknown');
    });
    it('one snapshot repository, undo log and sessions folder per Windows folder, however it is spelled', () => {
      const key = workspaceKey('C:\\Users\\ana\\Project', WIN32_PATHS);
      assert.match(key, /^Project-[0-9a-f]{16}$/);
      assert.equal(workspaceKey('c:\\users\\ana\\project', WIN32_PATHS).slice(-16), key.slice(-16));
      assert.equal(workspaceKey('\\\\?\\C:\\Users\\ana\\Project', WIN32_PATHS), key);
      assert.notEqual(workspaceKey('D:\\Users\\ana\\Project', WIN32_PATHS), key);
    });
  });

  describe('MCP roots', () => {
    it('gives servers file:// URIs of drive, UNC and long-path folders', () => {
      assert.deepEqual(rootsOf(['C:\\Users\\ana\\my project', '\\\\server\\share\\team', '\\\\?\\D:\\long\\path'], WIN32_PATHS), [
        { uri: 'file:///C:/Users/ana/my%20project', name: 'my project' },
        { uri: 'file://server/share/team', name: 'team' },
        { uri: 'file:///D:/long/path', name: 'path' },
      ]);
      assert.deepEqual(rootsOf(['/home/ana/p'], POSIX_PATHS), [{ uri: 'file:///home/ana/p', name: 'p' }]);
    });
  });

  describe('globs of a file search', () => {
    it('read "\\" as a separator on Windows, as ripgrep does there, and as an escape elsewhere', () => {
      assert.equal(platformGlob('src\\**\\*.ts', WIN32_PATHS), 'src/**/*.ts');
      assert.equal(pathGlob(platformGlob('src\\**\\*.ts', WIN32_PATHS))('src/a/b.ts'), true);
      assert.deepEqual(walkNarrowingArgs([platformGlob('src\\*.ts', WIN32_PATHS)]), walkNarrowingArgs(['src/*.ts']));
      assert.equal(platformGlob('src\\*.ts', POSIX_PATHS), 'src\\*.ts');
      assert.equal(pathGlob('a\\*.ts')('a*.ts'), true, 'on Linux "\\*" is a literal star');
      assert.equal(pathGlob('a\\*.ts')('a/b.ts'), false);
    });
    it('never list a file outside the searched folder, whatever a glob names', async () => {
      const outer = tempDir('crow-glob-out-');
      try {
        fs.writeFileSync(path.join(outer.dir, 'secret.txt'), 'x');
        fs.mkdirSync(path.join(outer.dir, 'ws'));
        fs.writeFileSync(path.join(outer.dir, 'ws', 'a.txt'), 'x');
        const workspace = new NodeWorkspace(path.join(outer.dir, 'ws'));
        const globs = ['..\\*', '../*', '../secret.txt', 'C:/*', '\\\\server\\share\\*', `${outer.dir}/*`, '/**/secret.txt', '**/../secret.txt'];
        const found = await workspace.findFiles({ globs, limit: 50, sort: 'path', signal: new AbortController().signal });
        assert.deepEqual(found.files, []);
        const every = await workspace.findFiles({ globs: ['**'], limit: 50, sort: 'path', signal: new AbortController().signal });
        assert.deepEqual(every.files, ['a.txt']);
      } finally {
        outer.remove();
      }
    });
  });

  describe('Windows names', () => {
    it('tells device names, streams and forbidden characters from plain names', () => {
      for (const name of ['CON', 'prn', 'Aux', 'NUL', 'COM1', 'com9', 'LPT1', 'COM\u00b9', 'aux.txt', 'nul.tar.gz', 'CON ', 'con.', 'a:b', 'x|y', 'tab\there']) {
        assert.notEqual(windowsNameProblem(name), undefined, name);
      }
      for (const name of ['CONSOLE', 'console.log', 'auxiliary.ts', 'com10', 'nullable.ts', 'a.ts', '.git', '..', '.']) {
        assert.equal(windowsNameProblem(name), undefined, name);
      }
    });
    it('reads every part of a long path as Windows does', () => {
      assert.equal(withoutDevicePrefix('\\\\?\\C:\\x', WIN32_PATHS), 'C:\\x');
      assert.equal(withoutDevicePrefix('\\\\.\\C:\\x', WIN32_PATHS), 'C:\\x');
      assert.equal(withoutDevicePrefix('\\\\?\\UNC\\srv\\share\\x', WIN32_PATHS), '\\\\srv\\share\\x');
      assert.equal(withoutDevicePrefix('\\\\.\\pipe\\crow', WIN32_PATHS), '\\\\.\\pipe\\crow');
      assert.equal(withoutDevicePrefix('\\\\?\\C:\\x', POSIX_PATHS), '\\\\?\\C:\\x');
      assert.deepEqual(namesWithin('C:\\', '\\\\?\\c:\\A\\b', WIN32_PATHS), ['A', 'b']);
    });
  });
});
