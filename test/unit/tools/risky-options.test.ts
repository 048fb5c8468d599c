import assert from 'node:assert/strict';
import { commandAlwaysScope, covers, judgeCommand, parseEntry, rememberable, type CommandEntry } from '../../../src/tools/command-rules';
import { riskyOptionRows } from '../../../src/tools/risky-options';

const entries = (...texts: string[]): CommandEntry[] => texts.map((text) => parseEntry(text)!);
const covered = (line: string, ...texts: string[]): boolean => covers(entries(...texts), judgeCommand(line));
/** Whether an "always" answer to `line` would cover `line` itself again. */
const alwaysCovers = (line: string): boolean => covers(rememberable(judgeCommand(line)), judgeCommand(line));

/** A harmless subcommand per program that has subcommands, to put the option after. */
const ORDINARY: Record<string, string> = { git: 'log', npm: 'test', npx: 'tsc', pnpm: 'test', pnpx: 'tsc', yarn: 'test', cargo: 'build', go: 'test', pip: 'install' };

describe('options that write files or run code, per program', () => {
  const rows = riskyOptionRows();

  it('has a table for each program users commonly allow', () => {
    const programs = new Set(rows.map((row) => row.program));
    for (const program of ['git', 'npm', 'pnpm', 'yarn', 'node', 'python', 'make', 'cargo', 'go', 'sed', 'awk', 'rg', 'curl', 'tar']) {
      assert.ok(programs.has(program), program);
    }
  });

  for (const row of rows) {
    const spelled = row.name === '' ? `${row.subcommand}` : `${row.subcommand ? `${row.subcommand} ` : ''}${row.name}`;
    it(`${row.program} ${row.where === 'global' ? `${row.name} (before the subcommand)` : spelled}: asked every time, never remembered`, () => {
      const value = row.name.includes('=') || row.name === '' || !row.name.startsWith('-') ? '' : ' value';
      const entry = row.where === 'any' && ORDINARY[row.program] ? `${row.program} ${ORDINARY[row.program]}` : row.where === 'subcommand' ? `${row.program} ${row.subcommand}` : row.program;
      const line =
        row.where === 'global' ? `${row.program} ${row.name}${value} ${ORDINARY[row.program]}`
        : row.where === 'subcommand' ? (row.name === '' ? `${row.program} ${row.subcommand} x` : `${row.program} ${row.subcommand} ${row.name}${value}`)
        : `${entry} ${row.name}${value}`;
      const allowed = row.where === 'subcommand' && row.name === '' ? row.program : entry;
      assert.ok(!covered(line, allowed), `"${allowed}" covers "${line}"`);
      assert.ok(!alwaysCovers(line), `"always" for "${line}" would cover it again`);
      assert.match(commandAlwaysScope(line), /asked every time/);
      assert.ok(covered(line, line), 'an entry that spells the option itself covers it');
    });
  }

  it('catches abbreviations, clusters, = values and Go\'s one-dash spelling', () => {
    for (const [line, entry] of [
      ['git log --outp=x', 'git log'],
      ['git log --out x', 'git log'],
      ['sed -ni s/a/b/ f', 'sed'],
      ['sed -i.bak s/a/b/ f', 'sed'],
      ['perl -pie 1 f', 'perl'],
      ['go test --exec=./evil', 'go test'],
      ['go build -o=bin/x', 'go build'],
      ['npm test --script-she=/tmp/x', 'npm test'],
      ['pnpm test --config.script-shell=/tmp/x', 'pnpm test'],
      ['curl -sSLo out https://example.com', 'curl'],
    ]) {
      assert.ok(!covered(line!, entry!), `"${entry}" covers "${line}"`);
    }
  });

  it('treats a word known only when it runs as a possible option, except past --', () => {
    assert.ok(!covered('git log $OPTS', 'git log'));
    assert.ok(!covered('git log *', 'git log'), 'a glob could match a file named --output=.git/config');
    assert.ok(covered('git log -- $FILE', 'git log'));
    assert.ok(covered('cat $FILE', 'cat'), 'a program with no such option is not affected');
  });

  it('reads sed scripts and awk programs for the commands that write or run', () => {
    for (const line of ["sed 's/a/b/e' f", "sed -n '1e id' f", "sed 's/a/b/w out' f", "sed -e p -e 'w /tmp/x' f", "sed '/x/,/y/ { w out\n}' f", 'sed "$S" f', "awk '{ system(\"id\") }' f", "awk '{ print > \"out\" }' f"]) {
      assert.ok(!covered(line, 'sed', 'awk'), line);
    }
    for (const line of ["sed 's/write/exec/g' f", "sed -n '/e/p' f", "sed 'y/ew/EW/' f", "sed -E 's|a/e|b|' f", "sed '1d;$d' f", "sed --sandbox 's/a/b/e' f", "awk '{ print $1 }' f"]) {
      assert.ok(covered(line, 'sed', 'awk'), line);
    }
  });

  it('takes make variables on the command line as risky, and leaves ls, cat and grep alone', () => {
    assert.ok(!covered('make SHELL=/tmp/x test', 'make'));
    assert.ok(covered('make -j4 test', 'make'));
    for (const line of ['ls -la src', 'cat -n README.md', 'grep -rn TODO src', 'grep -c x f', 'ls --color=auto']) assert.ok(covered(line, 'ls', 'cat', 'grep'), line);
  });

  it('sees the files an option writes, for the protected-path check', () => {
    const writes = (line: string) => judgeCommand(line).writes.map((write) => write.path);
    assert.deepEqual(writes('git log -1 --format=%B --output=.git/config'), ['.git/config']);
    assert.deepEqual(writes('git log --output .crow/config.toml'), ['.crow/config.toml']);
    assert.deepEqual(writes('git format-patch -o .vscode HEAD~1'), ['.vscode']);
    assert.deepEqual(writes('sort -o.git/config x'), ['.git/config']);
    assert.deepEqual(writes('curl -o ~/.bashrc https://example.com'), ['~/.bashrc']);
    assert.equal(judgeCommand('curl -o ~/.bashrc https://example.com').writes[0]!.tilde, true);
  });
});
