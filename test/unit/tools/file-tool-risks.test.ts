import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { covers, judgeCommand, parseEntry, rememberable, type CommandEntry } from '../../../src/tools/command-rules';
import { sedScriptRisk } from '../../../src/tools/sed-script';
import { describeUnless } from '../../support/skip-reasons';
import { tempDir } from './temp-workspace';

const entries = (...texts: string[]): CommandEntry[] => texts.map((text) => parseEntry(text)!);
const covered = (line: string, ...texts: string[]): boolean => covers(entries(...texts), judgeCommand(line));
const writes = (line: string): string[] => judgeCommand(line).writes.map((write) => write.path);

describe('text and file tools that write or run', () => {
  it('asks for the options of viewers and listers that run a program or write a file', () => {
    for (const [line, entry] of [
      ["less +'!touch x' f", 'less'],
      ['less -o copy.txt f', 'less'],
      ['less --lesskey-src=keys f', 'less'],
      ["man -P 'touch x' ls", 'man'],
      ["man --html='touch x' ls", 'man'],
      ['man -C my.conf ls', 'man'],
      ['tree -o listing.txt', 'tree'],
      ['tree -R -H . src', 'tree'],
      ['file -C -m magic', 'file'],
      ['shuf -o out f', 'shuf'],
      ['iconv -f utf8 -t ascii -o out f', 'iconv'],
      ['split -l 10 big.txt part-', 'split'],
      ['awk -W exec prog.awk', 'awk'],
      ['awk -Wexec prog.awk', 'awk'],
      ['awk \'BEGIN { getline < "/inet/tcp/0/example.com/80" }\'', 'awk'],
    ]) {
      assert.ok(!covered(line!, entry!), `"${entry}" covers "${line}"`);
      assert.ok(!covers(rememberable(judgeCommand(line!)), judgeCommand(line!)), `"always" for "${line}" would cover it again`);
    }
    for (const line of ['less f', 'less -R -S f', 'man ls', 'man -k printf', 'tree -L 2 src', 'file f', 'uniq f', 'uniq -c -f 1 f', 'xxd f', 'xxd -l 16 f', "awk '{ print $1 }' f"]) {
      assert.ok(covered(line, 'less', 'man', 'tree', 'file', 'uniq', 'xxd', 'awk'), line);
    }
  });

  it('takes the second operand of uniq and xxd for a file they write, past the values of their options', () => {
    assert.ok(!covered('uniq notes.txt .vscode/tasks.json', 'uniq'));
    assert.deepEqual(writes('uniq notes.txt .vscode/tasks.json'), ['.vscode/tasks.json']);
    assert.deepEqual(writes('uniq -f 1 -s 2 in out'), ['out']);
    assert.deepEqual(writes('xxd -r -c 8 dump.hex .git/config'), ['.git/config']);
    assert.deepEqual(writes('xxd -l 16 f'), []);
  });

  it('asks for tar when it writes an archive, and sees where', () => {
    for (const line of ['tar czf out.tgz src', 'tar -cf out.tar src', 'tar --create --file=out.tar src', 'tar rf out.tar f', 'tar -A -f out.tar b.tar']) {
      assert.ok(!covered(line, 'tar'), line);
      assert.deepEqual(rememberable(judgeCommand(line)).filter((entry) => entry[0] === 'tar'), [], `"always" remembers part of ${line}`);
    }
    assert.ok(covered('tar tzf out.tgz', 'tar'));
    assert.deepEqual(writes('tar czf out.tgz src'), ['out.tgz']);
    assert.deepEqual(writes('tar cbf 20 .git/x.tar src'), ['.git/x.tar'], 'old-style letters take their values in order');
    assert.deepEqual(writes('tar -czvf out.tgz src'), ['out.tgz']);
    assert.deepEqual(writes('tar --create --file=out.tar src'), ['out.tar']);
    assert.deepEqual(writes('tar czf - src'), [], 'to stdout');
  });

  it('sees the files other writers write: rsync and scp destinations, zip archives, git clone and init folders, sed -i files', () => {
    assert.deepEqual(writes('rsync -a src/ .crow/'), ['.crow/']);
    assert.deepEqual(writes('scp host:f .git/config'), ['.git/config']);
    assert.deepEqual(writes('scp f host:.git/config'), [], 'a remote destination');
    assert.deepEqual(writes('zip .git/hooks/pre-commit f'), ['.git/hooks/pre-commit']);
    assert.deepEqual(writes('git clone ../other .crow'), ['.crow']);
    assert.deepEqual(writes('git -C sub init .vscode'), ['.vscode']);
    assert.deepEqual(writes('git worktree add .crow/wt'), ['.crow/wt']);
    assert.deepEqual(writes("sed -i --expr='s/a/b/' .git/config"), ['.git/config'], 'an abbreviated --expression is no script operand');
    assert.deepEqual(writes('sed -i -nl 5 s/a/b/ .git/config'), ['.git/config']);
    assert.deepEqual(writes('sed -i s/a/b/ f g'), ['f', 'g']);
  });
});

describe('sed options read as GNU sed reads them', () => {
  it('finds the script behind clusters and abbreviations that take a value', () => {
    for (const args of [['--l', '5', '1e touch x', 'f'], ['-nl', '5', '1e touch x', 'f'], ['--expr=1e touch x', 'f'], ['--exp', '1e touch x', 'f'], ['-nl5', '1e touch x'], ['f', '-e', '1e touch x']]) {
      assert.match(sedScriptRisk(args) ?? '', /e command runs a shell command/, args.join(' '));
    }
    assert.match(sedScriptRisk(['--s', 'p', 'f']) ?? '', /options cannot be read \(--s\)/, 'ambiguous: sed refuses it, and so do we');
    assert.match(sedScriptRisk(['-x', 'p', 'f']) ?? '', /options cannot be read/);
    assert.equal(sedScriptRisk(['--sand', '1e touch x', 'f']), undefined, 'an abbreviated --sandbox');
    assert.equal(sedScriptRisk(['-n', '-e', 'p', '--', '1e touch x']), undefined, 'past -- a file, not a script');
  });
});

/** Whether this sed is GNU sed with --sandbox, the oracle of the test below. */
const gnuSandbox = spawnSync('sed', ['--sandbox', '-n', 'p'], { input: '' }).status === 0;

describeUnless(gnuSandbox ? undefined : 'no GNU sed with --sandbox on PATH', 'sed options against GNU sed itself', () => {
  it('judges safe only argument lists that GNU sed --sandbox runs without refusing an e, w or r command', function () {
    this.timeout(60_000);
    const { dir, remove } = tempDir('crow-sed-');
    try {
      fs.writeFileSync(path.join(dir, 'f'), 'x\n');
      const options = ['-n', '-e', '-l', '5', '-nl', '--expr', '--l', '-l5', '--'];
      const scripts = ['p', '1e touch X', 'w X', 's/x/y/w X'];
      let judgedSafe = 0;
      // Two option words, a script word and a file: a fixed set, not a random one.
      for (const a of options) for (const b of options) for (const script of scripts) {
        const args = [a, b, script, 'f'];
        if (sedScriptRisk(args) !== undefined) continue;
        judgedSafe++;
        const run = spawnSync('sed', ['--sandbox', ...args], { cwd: dir, input: 'x\n', encoding: 'utf8' });
        assert.doesNotMatch(run.stderr, /disabled in sandbox mode/, `judged safe, but sed would run or write: sed ${args.join(' ')}`);
      }
      assert.ok(judgedSafe > 40, `only ${judgedSafe} lists judged safe: the test would prove little`);
    } finally {
      remove();
    }
  });
});
