import assert from 'node:assert/strict';
import { covers, judgeCommand, parseEntry, rememberable, uncoveredReason, type CommandEntry } from '../../../src/tools/command-rules';

const entries = (...texts: string[]): CommandEntry[] =>
  texts.flatMap((text) => {
    const entry = parseEntry(text);
    return entry ? [entry] : [];
  });
/** Why an entry naming each program of `line` (and spelling `line` itself) still does not cover it. */
const refusal = (line: string): string | undefined => {
  const judgement = judgeCommand(line);
  const programs = judgement.commands.flatMap(({ command }) => (command.words[0] === undefined ? [] : [command.words[0]]));
  const allowed = entries(...programs, line.replace(/[$`*]/g, ''));
  return covers(allowed, judgement) ? undefined : uncoveredReason(allowed, judgement);
};

describe('commands no entry can cover', () => {
  it('env running a program however -S is spelled: attached, in a cluster, or as an abbreviation of --split-string', () => {
    for (const line of ["env -S'touch x'", "env -iS'touch x'", "env -vS 'touch x'", "env --sp='touch x'", "env --split-str 'touch x'", 'env -u HOME touch x', 'env -C /tmp touch x', 'env -- touch x', 'env --unset HOME touch x']) {
      assert.match(refusal(line) ?? '', /env runs another command/, line);
    }
    for (const line of ['env', 'env -u HOME', 'env -uHOME', 'env --unset=HOME', 'env -0']) assert.equal(refusal(line), undefined, line);
  });

  it('find with an action, or with a word only known when it runs (a glob could match a file named -delete)', () => {
    assert.match(refusal('find . -maxdepth 0 $(echo -exec touch x ";")') ?? '', /find gets a word known only when it runs/);
    assert.match(refusal('find * -name x') ?? '', /could be -exec or -delete/);
    assert.match(refusal('find . -execdir rm {} +') ?? '', /find runs commands or changes files/);
    assert.equal(refusal("find . -name '*.ts' -newer x -print0"), undefined, 'a quoted pattern is a literal word');
  });

  it('programs that run another command, and editors, whose own commands can run one', () => {
    for (const [line, why] of [
      ['run-parts ./hooks', /run-parts runs another command/],
      ['prlimit --nofile=10 touch x', /prlimit runs another command/],
      ['unshare -r touch x', /unshare runs another command/],
      ["vim -es -c '!touch x' -c q f", /vim runs the editor commands .* can run any program/],
      ["ed -s f", /ed runs the editor commands/],
      ['xargs -0 grep x', /xargs runs another command/],
    ] as const) {
      assert.match(refusal(line) ?? '', why, line);
    }
  });

  it('archives and patches that write the files their input names, and their modes that only read', () => {
    for (const line of ['tar xf a.tar', 'tar -xzf a.tgz', 'tar --extract -f a.tar', 'tar --ext -f a.tar', 'tar --get -f a.tar', 'unzip a.zip', 'unzip -o a.zip -d out', 'patch -p1 -i fix.diff', 'cpio -idv', '7z x a.7z', 'git apply fix.diff', 'git -C sub apply fix.diff', 'git am mail.mbox', 'git apply --check --apply fix.diff']) {
      assert.match(refusal(line) ?? '', /writes the files its (archive|patch) names, wherever that is/, line);
    }
    for (const line of ['tar tf a.tar', 'tar -tzf a.tgz', 'unzip -l a.zip', 'unzip -p a.zip f', 'patch --dry-run -p1 -i fix.diff', '7z l a.7z', 'git apply --check fix.diff', 'git apply --stat fix.diff']) {
      assert.equal(judgeCommand(line).commands[0]!.problem, undefined, line);
    }
  });

  it('remembers nothing of them on "always"', () => {
    for (const line of ["env -S'touch x'", 'tar xf a.tar', 'find * -name x', 'git apply fix.diff']) assert.deepEqual(rememberable(judgeCommand(line)), [], line);
  });
});
