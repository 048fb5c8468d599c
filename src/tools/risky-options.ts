/**
 * The options of commonly allowed programs that write files or run code
 * (`git log --output=FILE`, `git -c core.fsmonitor=CMD`, `find -exec`,
 * `sed -i`, `npm --script-shell`, `go test -exec`, `python -c` ...). An
 * allow-list entry or an "always" answer vouches for a prefix of words;
 * these options turn a harmless command into one that writes anywhere or
 * runs anything, so a call using one is asked every time unless the entry
 * itself spells that option (see command-rules.ts).
 *
 * Matching is deliberately loose: a long option also matches its
 * abbreviations (git, GNU getopt, argparse and npm accept unambiguous
 * prefixes: `--outp` is `--output`), a short one matches inside a cluster
 * (`-ni` holds `-i`), and a word known only at run time (a variable, a
 * glob, a substitution) could be any option, so it counts as one.
 */
import { FILE_TOOL_RISKS } from './file-tool-risks';
import { type ProgramRisks, type RiskyOption, option, writer } from './risky-option';
import type { SimpleCommand } from './shell-syntax';

const GIT_OUTPUT = writer('writes its output to any file', '--output', '--output-directory');
const GIT_FETCH = option('runs the program it names on the other side of a fetch', '--upload-pack', '-u', '--exec');

const GIT: ProgramRisks = {
  global: [
    option('sets git configuration for the call, which can name a program to run (core.fsmonitor, core.pager, aliases)', '-c', '--config-env'),
    option('points git at another repository or program folder, whose configuration and hooks run', '--git-dir', '--work-tree', '--exec-path'),
  ],
  globalValues: new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix']),
  any: [GIT_OUTPUT, option('runs the external diff program', '--ext-diff')],
  subcommands: {
    'format-patch': [writer('writes patches into any folder', '-o')],
    archive: [writer('writes the archive to any file', '-o'), option('runs a program on the remote side', '--exec', '--remote')],
    fetch: [GIT_FETCH],
    pull: [GIT_FETCH],
    'ls-remote': [GIT_FETCH],
    clone: [GIT_FETCH, option('sets configuration or hooks for the new repository', '-c', '--config', '--template', '--separate-git-dir')],
    init: [option('copies hooks from a template folder', '--template', '--separate-git-dir')],
    push: [option('runs the program it names on the other side', '--receive-pack', '--exec')],
    rebase: [option('runs a command after each commit', '-x', '--exec')],
    bisect: [option('runs a command on each commit', 'run')],
    submodule: [option('runs a command in each submodule', 'foreach')],
    difftool: [option('runs the command it is given', '-x', '--extcmd')],
    grep: [option('opens matches in the program it names', '-O', '--open-files-in-pager')],
    bundle: [option('writes a bundle to any file', 'create')],
    config: [option('changes your own or the system\'s git configuration', '--global', '--system', '--file', '-f', '--edit', '-e')],
    'send-email': [option('runs the programs it names', '--to-cmd', '--cc-cmd', '--sendmail-cmd', '--smtp-server')],
    'filter-branch': 'runs the shell code of its filters',
    hook: 'runs the repository\'s hooks',
    credential: 'runs credential helpers and prints what they return',
    instaweb: 'starts a web server program',
    daemon: 'serves the repository to the network',
    help: 'shows help in the viewer or browser git\'s configuration names',
  },
};

/** npm, pnpm and yarn take any configuration key as an option; these keys name programs or other folders. */
const PACKAGE_MANAGER_OPTIONS: readonly RiskyOption[] = [
  option('runs its scripts or node with what the option names', '--script-shell', '--node-options', '--shell', '--call', '-c', '--shell-mode'),
  option('reads configuration from another file, which can name programs to run', '--userconfig', '--globalconfig', '--config'),
  option('runs the program it names', '--editor', '--browser', '--viewer', '--git', '--init-module'),
  option('installs into or runs from another folder', '--prefix', '--global', '-g', '--location', '--dir', '--cwd', '-C'),
  option('turns install scripts back on', '--no-ignore-scripts', '--ignore-scripts=false'),
];

const PACKAGE_CONFIG = option('changes the package manager\'s own configuration', 'set', 'edit', 'delete', 'rm');

const NPM: ProgramRisks = {
  any: PACKAGE_MANAGER_OPTIONS,
  subcommands: {
    exec: 'runs any package\'s program',
    x: 'runs any package\'s program',
    explore: 'runs a shell in a package\'s folder',
    edit: 'runs an editor',
    config: [PACKAGE_CONFIG],
    c: [PACKAGE_CONFIG],
    set: 'changes npm\'s own configuration',
  },
};

const PNPM: ProgramRisks = {
  any: [...PACKAGE_MANAGER_OPTIONS, option('sets configuration for the call', '--config.')],
  subcommands: { exec: 'runs any program', dlx: 'downloads and runs any package', create: 'downloads and runs a starter package', config: [PACKAGE_CONFIG] },
};

const YARN: ProgramRisks = {
  any: PACKAGE_MANAGER_OPTIONS,
  subcommands: {
    exec: 'runs any program',
    dlx: 'downloads and runs any package',
    node: 'runs node with any arguments',
    create: 'downloads and runs a starter package',
    config: [PACKAGE_CONFIG],
    set: 'downloads and switches yarn itself',
    plugin: 'downloads and loads plugin code',
    global: 'installs programs for your whole account',
  },
};

const NODE: ProgramRisks = {
  any: [
    option('runs code given inline', '-e', '--eval', '-p', '--print'),
    option('loads code before the script', '-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--env-file-if-exists', '--openssl-config'),
    option('opens a debugger port anyone on this machine can drive', '--inspect', '--inspect-brk', '--inspect-wait'),
    writer('writes a file where it is told', '--redirect-warnings', '--report-directory', '--report-dir', '--diagnostic-dir', '--cpu-prof-dir', '--heap-prof-dir', '--test-reporter-destination', '--tls-keylog'),
  ],
};

const PYTHON: ProgramRisks = { any: [option('runs code given inline', '-c')] };
const PERL: ProgramRisks = { any: [option('runs code given inline', '-e', '-E'), option('edits files in place', '-i')] };
const RUBY: ProgramRisks = { any: [option('runs code given inline', '-e'), option('edits files in place', '-i'), option('loads code before the script', '-r')] };

const MAKE: ProgramRisks = {
  any: [
    option('reads another makefile, whose recipes run', '-f', '--file', '--makefile', '-I', '--include-dir', '-C', '--directory'),
    option('evaluates make code given inline', '-E', '--eval'),
  ],
  assignments: 'overrides a make variable, which can change the programs recipes run (SHELL=, CC=)',
};

const CARGO: ProgramRisks = {
  any: [
    option('sets configuration for the call, which can name a program to run (target.*.runner)', '--config', '-Z'),
    option('builds another manifest, whose build scripts run', '--manifest-path'),
    writer('writes build output to any folder', '--target-dir', '--artifact-dir', '--out-dir', '--root'),
  ],
  subcommands: { install: 'installs programs for your whole account', config: 'changes cargo\'s configuration' },
};

const GO: ProgramRisks = {
  singleDashLong: true,
  any: [
    option('runs the program it names on the build or the tests', '-exec', '-toolexec', '-vettool', '-overlay', '-modfile'),
    option('passes flags to the compiler or linker, which can name a program to run', '-ldflags', '-gcflags', '-asmflags', '-gccgoflags'),
    writer('writes a file where it is told', '-o', '-cpuprofile', '-memprofile', '-blockprofile', '-mutexprofile', '-trace', '-coverprofile', '-outputdir', '-pkgdir'),
    option('builds in another folder', '-C'),
  ],
  subcommands: { env: [option('changes go\'s own settings (GOFLAGS can name a program)', '-w', '-u')], generate: 'runs the commands the source files name' },
};

const PIP: ProgramRisks = {
  any: [writer('installs into another folder', '--target', '-t', '--prefix', '--root', '--src')],
  subcommands: { config: [PACKAGE_CONFIG] },
};

/** The table per program name. Programs missing here (ls, cat, grep, head, wc...) have no option that writes or runs code. */
const PROGRAMS: Readonly<Record<string, ProgramRisks>> = {
  git: GIT,
  npm: NPM,
  npx: NPM,
  pnpm: PNPM,
  pnpx: PNPM,
  yarn: YARN,
  node: NODE,
  nodejs: NODE,
  bun: NODE,
  deno: NODE,
  python: PYTHON,
  python2: PYTHON,
  python3: PYTHON,
  perl: PERL,
  ruby: RUBY,
  make: MAKE,
  gmake: MAKE,
  cargo: CARGO,
  go: GO,
  pip: PIP,
  pip3: PIP,
  ...FILE_TOOL_RISKS,
};

/** Where a command uses an option that writes files or runs code: the index of the word in `command.words`, and why. */
export interface RiskyUse {
  index: number;
  why: string;
}

/** The risky options `command` uses, and the literal paths their values write. */
export function riskyUses(command: SimpleCommand): { uses: RiskyUse[]; writes: { path: string; tilde: boolean }[] } {
  const [program, ...args] = command.words;
  const table = program === undefined ? undefined : PROGRAMS[baseName(program)];
  const found = { uses: [] as RiskyUse[], writes: [] as { path: string; tilde: boolean }[] };
  if (!table) return found;
  const name = baseName(program!);
  const sub = subcommandIndex(args, table);
  const subName = sub >= 0 ? args[sub] : undefined;
  const subRules = subName !== undefined ? table.subcommands?.[subName] : undefined;
  if (typeof subRules === 'string') found.uses.push({ index: sub + 1, why: `${name} ${subName} ${subRules}` });
  let afterDashes = false;
  args.forEach((word, i) => {
    const index = i + 1;
    const use = (why: string): void => void found.uses.push({ index, why: `${name} ${why}` });
    if (word === undefined) {
      if (!afterDashes) use('gets a word known only when it runs, which could be an option that writes files or runs code');
      return;
    }
    if (word === '--') afterDashes = true;
    const rules: readonly RiskyOption[] = [...(table.any ?? []), ...(sub < 0 || i < sub ? (table.global ?? []) : []), ...(i > sub && typeof subRules === 'object' ? subRules : [])];
    for (const rule of rules) {
      const match = rule.names.find((spelled) => matches(word, spelled, table, afterDashes));
      if (match === undefined) continue;
      use(`${match} ${rule.why}`);
      const value = rule.writes ? valueOf(word, match, args[i + 1]) : undefined;
      if (value !== undefined) found.writes.push({ path: value.path, tilde: value.next && (command.tilde[index + 1] ?? false) });
    }
    if (table.assignments && !afterDashes && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) use(`${word.split('=')[0]}= ${table.assignments}`);
  });
  const scriptRisk = table.script?.(args);
  if (scriptRisk !== undefined) found.uses.push({ index: 1, why: `${name}: ${scriptRisk}` });
  const output = table.output && outputOperand(args, table.output);
  if (output !== undefined) {
    found.uses.push({ index: output + 1, why: `${name} ${table.output!.why}` });
    found.writes.push({ path: args[output]!, tilde: command.tilde[output + 1] ?? false });
  }
  return found;
}

/** Where the operand a program writes is (see ProgramRisks.output), when the command has it and it is literal. */
function outputOperand(args: readonly (string | undefined)[], output: NonNullable<ProgramRisks['output']>): number | undefined {
  let seen = 0;
  let afterDashes = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (!afterDashes && word === '--') afterDashes = true;
    else if (!afterDashes && word !== undefined && word.startsWith('-') && word !== '-') {
      if (output.valued.has(word)) i++;
    } else if (seen++ === output.operand) return word === undefined ? undefined : i;
  }
  return undefined;
}

/** Where the subcommand is: the first word past the global options (and their values); -1 when there is none. */
function subcommandIndex(args: readonly (string | undefined)[], table: ProgramRisks): number {
  if (!table.subcommands) return -1;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === undefined) return -1;
    if (table.globalValues?.has(word)) i++;
    else if (!word.startsWith('-')) return i;
  }
  return -1;
}

/** Whether `word` spells option `name`, its abbreviation, or holds it in a cluster of short options. */
function matches(word: string, name: string, table: ProgramRisks, afterDashes: boolean): boolean {
  if (name === '+') return !afterDashes && word.startsWith('+');
  if (!name.startsWith('-')) return word === name;
  if (afterDashes || !word.startsWith('-') || word === '-' || word === '--') return false;
  if (name.includes('=')) return word === name;
  const key = word.replace(/^--?/, '').split('=')[0]!;
  const bare = name.replace(/^--?/, '');
  if (table.singleDashLong) return key === bare || (bare.length > 1 && key.length >= 2 && bare.startsWith(key));
  if (name.startsWith('--')) {
    if (!word.startsWith('--')) return false;
    if (bare.endsWith('.')) return key.startsWith(bare);
    // An abbreviation stands for the option: git, getopt_long, argparse and npm accept unambiguous prefixes.
    return key === bare || (key.length >= 2 && bare.startsWith(key));
  }
  if (word.startsWith('--')) return false;
  return bare.length === 1 ? key.includes(bare) : word === name || word.startsWith(name);
}

/** The path an option that names a file writes: after `=`, glued to a short option, or the next word (`next`). */
function valueOf(word: string, name: string, following: string | undefined): { path: string; next: boolean } | undefined {
  const equals = word.indexOf('=');
  if (equals >= 0) return { path: word.slice(equals + 1), next: false };
  const short = !name.startsWith('--') && name.length === 2;
  if (short && word.startsWith(name) && word.length > name.length) return { path: word.slice(name.length), next: false };
  if (short && !word.endsWith(name[1]!)) return undefined;
  return following === undefined ? undefined : { path: following, next: true };
}

function baseName(program: string): string {
  const slash = program.lastIndexOf('/');
  return slash >= 0 ? program.slice(slash + 1) : program;
}

/** Every row of the tables, for tests and documentation: where the option counts, and its spelling. */
export function riskyOptionRows(): { program: string; where: 'global' | 'any' | 'subcommand'; subcommand?: string; name: string; why: string }[] {
  return Object.entries(PROGRAMS).flatMap(([program, table]) => [
    ...(table.global ?? []).flatMap((rule) => rule.names.map((name) => ({ program, where: 'global' as const, name, why: rule.why }))),
    ...(table.any ?? []).flatMap((rule) => rule.names.map((name) => ({ program, where: 'any' as const, name, why: rule.why }))),
    ...Object.entries(table.subcommands ?? {}).flatMap(([subcommand, rules]) =>
      typeof rules === 'string'
        ? [{ program, where: 'subcommand' as const, subcommand, name: '', why: rules }]
        : rules.flatMap((rule) => rule.names.map((name) => ({ program, where: 'subcommand' as const, subcommand, name, why: rule.why }))),
    ),
  ]);
}
