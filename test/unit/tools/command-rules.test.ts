import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  commandAlwaysScope,
  covers,
  entryText,
  judgeCommand,
  parseEntry,
  rememberable,
  type CommandEntry,
} from '../../../src/tools/command-rules';
import { parseShell } from '../../../src/tools/shell-syntax';
import { tempDir } from './temp-workspace';

const entries = (...texts: string[]): CommandEntry[] => texts.map((text) => parseEntry(text)!);
const covered = (line: string, ...texts: string[]): boolean => covers(entries(...texts), judgeCommand(line));
const programs = (line: string): (string | undefined)[][] => parseShell(line).commands.map((command) => [...command.words]);

describe('shell syntax', () => {
  it('splits a line into its simple commands, wherever they hide', () => {
    assert.deepEqual(programs('git status; touch x'), [['git', 'status'], ['touch', 'x']]);
    assert.deepEqual(programs('git status\ntouch x'), [['git', 'status'], ['touch', 'x']]);
    assert.deepEqual(programs('a && b || c | d |& e & f'), [['a'], ['b'], ['c'], ['d'], ['e'], ['f']]);
    assert.deepEqual(programs('git status $(touch x)'), [['git', 'status', undefined], ['touch', 'x']]);
    assert.deepEqual(programs('echo `touch x`'), [['echo', undefined], ['touch', 'x']]);
    assert.deepEqual(programs('echo ${x:-`touch y`}'), [['echo', undefined], ['touch', 'y']]);
    assert.deepEqual(programs('cat <<-EOF\n\t$(touch x)\n\tEOF'), [['cat'], ['touch', 'x']], 'substitutions in here-documents run');
    assert.deepEqual(programs("cat <<'EOF'\n$(touch x)\nEOF"), [['cat']], 'a quoted here-document is text');
    assert.deepEqual(programs('diff <(sort a) >(wc)'), [['diff', undefined, undefined], ['sort', 'a'], ['wc']]);
    assert.deepEqual(programs('if git status; then make; fi; for f in a; do rm "$f"; done'), [['git', 'status'], ['make'], ['rm', undefined]]);
  });

  it('takes quoting away the way bash does, and keeps escaped syntax as text', () => {
    assert.deepEqual(programs(`g'it' "sta"tu\\s`), [['git', 'status']]);
    assert.deepEqual(programs("git status $'\\x3b' touch x"), [['git', 'status', ';', 'touch', 'x']]);
    assert.deepEqual(programs("git status '$(touch x)' \"\\$(touch x)\""), [['git', 'status', '$(touch x)', '$(touch x)']]);
    assert.deepEqual(programs('git status #; touch x'), [['git', 'status']]);
  });

  it('marks words known only at run time: variables, globs, braces', () => {
    assert.deepEqual(programs('$CMD status; git st*; git {status,clean}; git "$x"'), [
      [undefined, 'status'],
      ['git', undefined],
      ['git', undefined],
      ['git', undefined],
    ]);
  });

  it('reports broken input as problems, at any depth, instead of guessing', () => {
    for (const broken of ['git status "unterminated', 'git status $(', 'git status )', 'echo $(echo `x)', 'git status ;;']) {
      assert.ok(parseShell(broken).problems.some((problem) => /cannot be parsed/.test(problem)), broken);
    }
    const deep = `${'$('.repeat(3000)}touch x${')'.repeat(3000)}`;
    assert.ok(parseShell(deep).problems.length > 0, 'absurd nesting is a problem, not a crash');
  });
});

describe('command rules', () => {
  it('covers a line only when every simple command in it starts with an entry', () => {
    assert.ok(covered('git status', 'git status'));
    assert.ok(covered('git status --short -- src', 'git status'));
    assert.ok(covered('git status && npm test 2>&1', 'git status', 'npm test'));
    assert.ok(!covered('git log $(git rev-parse HEAD)', 'git log', 'git rev-parse'), 'a computed word could be --output=FILE');
    assert.ok(covered('git log -- $(git ls-files src)', 'git log', 'git ls-files'), 'past --, a computed word is a path');
    assert.ok(covered('[[ -f x ]] && npm test 2>/dev/null', 'npm test'));
    assert.ok(!covered('npm testify', 'npm test'));
    assert.ok(!covered('git stash', 'git status'));
    assert.ok(!covered('/usr/bin/git status', 'git status'), 'the program matches as written');
  });

  it('refuses the six ways past "git status" that the old prefix rule let through', () => {
    for (const line of [
      'git status; touch x',
      'git status && touch x',
      'git status $(touch x)',
      'git status | sh',
      "alias git='touch x'; git status",
      'git() { touch x; }; git status',
      'git status\ntouch x',
    ]) {
      assert.ok(!covered(line, 'git status'), line);
    }
  });

  it('never covers constructs a prefix cannot vouch for, whatever the entries', () => {
    const everything = ['git', 'echo', 'sh', 'bash', 'env', 'xargs', 'find', 'eval', 'sudo', 'source', '.', 'exec', 'printf', 'timeout', 'touch', 'cat', 'python'];
    for (const line of [
      'eval "touch x"',
      'sh -c "touch x"',
      'bash -c "touch x"',
      'bash <<EOF\ntouch x\nEOF',
      'echo touch x | sh',
      'echo x | xargs touch',
      'env FOO=1 touch x',
      'env -S "touch x"',
      'sudo touch x',
      'find . -exec touch x \\;',
      'find . -name x -delete',
      'source ./script.sh',
      '. ./script.sh',
      'exec touch x',
      'timeout 5 touch x',
      'touch x &',
      'PATH=/tmp/evil:$PATH git status',
      'GIT_DIR=/elsewhere git status',
      'printf -v PATH %s /tmp/evil; git status',
      'echo $(( a[$(touch x)] ))',
      'echo ${!name}',
      'git status > notes.txt',
      'git() { :; }',
      'coproc touch x',
      'git status "unterminated',
      '',
    ]) {
      assert.ok(!covered(line, ...everything), JSON.stringify(line));
    }
    assert.ok(covered('bash ./scripts/check.sh', 'bash ./scripts/check.sh'), 'a shell running a named script is coverable');
  });

  it('takes allow-list entries as one simple command of literal words', () => {
    assert.deepEqual(parseEntry('git commit -m "wip now"'), ['git', 'commit', '-m', 'wip now']);
    assert.equal(parseEntry('npm test; rm -rf /'), undefined);
    assert.equal(parseEntry('npm test $(x)'), undefined);
    assert.equal(parseEntry('  '), undefined);
    assert.equal(parseEntry('FOO=1 npm test'), undefined);
  });

  it('remembers a sensible prefix of each command an "always" answer covers', () => {
    const remembered = (line: string) => rememberable(judgeCommand(line)).map(entryText);
    assert.deepEqual(remembered('git status'), ['git status']);
    assert.deepEqual(remembered('git status --short'), ['git status']);
    assert.deepEqual(remembered('npm run build -- --watch'), ['npm run build']);
    assert.deepEqual(remembered('git -c core.pager=less log -5'), [], 'never a prefix holding an option that runs code');
    assert.deepEqual(remembered('git log --oneline --output=.git/config'), ['git log'], 'a risky option past the prefix stays asked');
    assert.deepEqual(remembered('python -m pytest -x tests'), ['python -m pytest']);
    assert.deepEqual(remembered('python tools/gen.py --out x'), ['python tools/gen.py']);
    assert.deepEqual(remembered('node -e "console.log(1)"'), [], 'inline code is asked every time');
    assert.deepEqual(remembered('rm -rf dist'), ['rm -rf dist'], 'destructive commands are remembered whole');
    assert.deepEqual(remembered('cat README.md'), ['cat']);
    assert.deepEqual(remembered('echo made'), ['echo'], 'what echo prints is not a subcommand');
    assert.deepEqual(remembered('grep -rn needle src'), ['grep']);
    assert.deepEqual(remembered('cd sub && npm test'), ['cd sub', 'npm test']);
    assert.deepEqual(remembered('git status | sh'), ['git status'], 'never the part that is asked every time');
    assert.deepEqual(remembered('git -c $X log'), [], 'never a prefix ending in an option of unknown value');
    assert.deepEqual(remembered('node'), [], 'never a bare interpreter');
  });

  it('says what "always" covers, and when this command is asked every time anyway', () => {
    assert.equal(commandAlwaysScope('git status'), 'commands starting with "git status"');
    assert.equal(commandAlwaysScope('cd sub && npm test'), 'commands starting with "cd sub" or "npm test"');
    assert.equal(
      commandAlwaysScope('git status | sh'),
      'commands starting with "git status"; this one is asked every time: sh runs a script given inline or on its input (sh)',
    );
    assert.match(commandAlwaysScope('echo "unterminated'), /^no command; this one is asked every time: it cannot be parsed/);
  });

  it('finds the files a command writes where its words say so', () => {
    const writes = (line: string) => judgeCommand(line).writes.map((write) => write.path);
    assert.deepEqual(writes('echo x > a 2>&1 >> b &> c 2>/dev/null'), ['a', 'b', 'c']);
    assert.deepEqual(writes('echo x | tee -a log.txt'), ['log.txt']);
    assert.deepEqual(writes('cp -r src dest/'), ['dest/']);
    assert.deepEqual(writes('cp -t target a b'), ['target']);
    assert.deepEqual(writes('mv old new'), ['old', 'new']);
    assert.deepEqual(writes('sed -i s/a/b/ file.txt'), ['file.txt']);
    assert.deepEqual(writes('dd if=/dev/zero of=disk.img'), ['disk.img']);
    assert.deepEqual(writes('git config core.fsmonitor x'), ['.git/config']);
    assert.deepEqual(writes('git -C sub config --unset core.pager'), ['.git/config']);
    assert.deepEqual(writes('git config --get core.pager; git config user.name'), [], 'reads write nothing');
    assert.deepEqual(writes('git commit -m config a b'), [], 'only the config subcommand');
    assert.deepEqual(judgeCommand('cd .git && pushd hooks').dirs.map((dir) => dir.path), ['.git', 'hooks']);
  });
});

describe('command rules against bash itself', function () {
  if (process.platform === 'win32') return;
  this.timeout(60_000);
  const ENTRIES = entries('echo', 'git status', 'true');
  let folder: { dir: string; remove: () => void };
  before(() => (folder = tempDir('crow-bash-')));
  after(() => folder.remove());

  /** Runs `line` in a fresh folder; whether it created the marker file x. */
  function ranTouch(line: string): boolean {
    const dir = path.join(folder.dir, 'run');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir);
    // `git` here is a function that does nothing, so the real one never runs in these tests.
    spawnSync('bash', ['-c', `git() { :; }\n${line}`], { cwd: dir, timeout: 5_000, stdio: 'ignore' });
    return fs.existsSync(path.join(dir, 'x'));
  }

  it('never judges covered a line that bash makes create a file (generated hostile lines)', () => {
    const tokens = ['echo', 'echo a', 'git status', ';', '&&', '||', '|', '$(', ')', '`', "'", '"', '\\', '\n', '<<EOF', '<<-EOF', "<<'EOF'",
      '\nEOF\n', '{', '}', '(', '#', 'touch x', 'case a in a)', 'esac', ';;', '${y:-', '$((', '))', '<(', '>(', 'if', 'then', 'fi',
      'x=1', '\\\n', "$'", '<<<', 'for i in', 'do', 'done', '&', 'eval', 'alias', 'touch', 'x', '!', '[[', ']]', '>', 'true'];
    let seed = 20_240_601;
    const random = (): number => ((seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff);
    let judgedCovered = 0;
    for (let i = 0; i < 40_000 && judgedCovered < 150; i++) {
      let line = '';
      for (let j = 2 + Math.floor(random() * 10); j > 0; j--) line += tokens[Math.floor(random() * tokens.length)] + (random() < 0.5 ? ' ' : '');
      if (!line.includes('touch') || !covers(ENTRIES, judgeCommand(line))) continue;
      judgedCovered++;
      assert.ok(!ranTouch(line), `covered by echo/git status/true, yet bash created a file: ${JSON.stringify(line)}`);
    }
    assert.ok(judgedCovered >= 20, `enough covered lines were tried (${judgedCovered})`);
  });
});
