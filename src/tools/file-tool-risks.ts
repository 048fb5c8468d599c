/**
 * The risky-option tables (see risky-option.ts) of the text, file, archive
 * and network tools people allow-list as harmless: the options that make
 * them run a program (`rg --pre`, `awk -W exec`, `man -P`, `less +!cmd`),
 * write a file (`sort -o`, `tree -o`, `uniq IN OUT`, `tar c`) or read a
 * program from a file the workspace holds.
 */
import { type ProgramRisks, option, writer } from './risky-option';
import { sedScriptRisk } from './sed-script';

const SED: ProgramRisks = {
  any: [option('edits files in place', '-i', '--in-place'), option('reads its script from a file, which can run commands', '-f', '--file')],
  script: sedScriptRisk,
};

/** awk programs that run a command (system, `|`), write (`>`), open a network connection (gawk's /inet) or load code. */
const AWK: ProgramRisks = {
  any: [option('reads its program from a file or loads extensions', '-f', '--file', '-i', '--include', '-l', '--load', '-E', '--exec', '-W')],
  script: (args) =>
    args.some((word) => word === undefined || /system\s*\(|[|>]|@load|@include|\/inet/.test(word))
      ? 'its program can run commands, write files or open connections (system, |, >, /inet)'
      : undefined,
};

const RG: ProgramRisks = { any: [option('runs the program it names on each file', '--pre', '--hostname-bin')] };
const SORT: ProgramRisks = { any: [writer('writes its output to any file', '-o', '--output'), option('runs the program it names', '--compress-program')] };
const SHUF_ICONV: ProgramRisks = { any: [writer('writes its output to any file', '-o', '--output')] };

const TAR: ProgramRisks = {
  any: [
    option('runs the program it names', '--to-command', '--checkpoint-action', '-I', '--use-compress-program', '-F', '--info-script', '--new-volume-script', '--rsh-command'),
    option('extracts or creates into another folder', '-C', '--directory'),
  ],
  script: (args) => (tarWrites(args) ? 'its c, r, u or A mode writes the archive to any file' : undefined),
};

const CURL: ProgramRisks = {
  any: [
    writer('writes what it fetches to any file', '-o', '--output', '-O', '--remote-name', '--output-dir', '-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--libcurl', '--stderr', '--etag-save', '--hsts', '--alt-svc'),
    option('reads options from a file', '-K', '--config'),
  ],
};
const WGET: ProgramRisks = {
  any: [
    writer('writes what it fetches to any file', '-O', '--output-document', '-o', '--output-file', '-a', '--append-output', '-P', '--directory-prefix'),
    option('runs wgetrc commands or programs', '-e', '--execute', '--config', '--use-askpass'),
  ],
};
const SSH: ProgramRisks = { any: [option('can run a local command (ProxyCommand, LocalCommand)', '-o', '-F', '-S', '-e', '--rsh', '--rsync-path')] };
const ZIP: ProgramRisks = { any: [option('runs the program it names to test the archive', '-TT', '--unzip-command')] };

const TREE: ProgramRisks = {
  any: [writer('writes its listing to any file', '-o'), option('writes a listing into every folder it shows', '-R')],
};
/** less's `+cmd` and lesskey files run less commands, `!cmd` (a shell) and LESSOPEN among them. */
const LESS: ProgramRisks = {
  any: [
    option('runs the less commands it is given at start, which can run a shell (!)', '+'),
    writer('writes a copy of its input to any file', '-o', '--log-file', '-O', '--LOG-FILE'),
    option('reads key bindings and variables (LESSOPEN runs a program)', '-k', '--lesskey-file', '--lesskey-src', '--lesskey-content'),
  ],
};
const MAN: ProgramRisks = {
  any: [
    option('runs the program it names as pager or browser', '-P', '--pager', '-H', '--html', '-X', '--gxditview'),
    option('reads a configuration that names the programs it runs', '-C', '--config-file'),
  ],
};
const FILE: ProgramRisks = { any: [option('compiles a magic file, writing the result beside it', '-C', '--compile')] };
/** `uniq IN OUT` and `xxd IN OUT` write their second operand. */
const UNIQ: ProgramRisks = {
  output: { operand: 1, valued: new Set(['-f', '-s', '-w', '--skip-fields', '--skip-chars', '--check-chars']), why: 'writes its output to the file its second operand names' },
};
const XXD: ProgramRisks = {
  output: {
    operand: 1,
    valued: new Set(['-c', '-cols', '-g', '-groupsize', '-l', '-len', '-o', '-offset', '-s', '-seek', '-n', '-name', '-R']),
    why: 'writes its output to the file its second operand names',
  },
};
const SPLIT: ProgramRisks = { script: () => 'writes the pieces of its input to files' };

export const FILE_TOOL_RISKS: Readonly<Record<string, ProgramRisks>> = {
  sed: SED,
  gsed: SED,
  awk: AWK,
  gawk: AWK,
  mawk: AWK,
  nawk: AWK,
  rg: RG,
  sort: SORT,
  shuf: SHUF_ICONV,
  iconv: SHUF_ICONV,
  tar: TAR,
  bsdtar: TAR,
  gtar: TAR,
  curl: CURL,
  wget: WGET,
  ssh: SSH,
  scp: SSH,
  rsync: SSH,
  zip: ZIP,
  tree: TREE,
  less: LESS,
  man: MAN,
  file: FILE,
  uniq: UNIQ,
  xxd: XXD,
  split: SPLIT,
  csplit: SPLIT,
};

/** tar's letters whose value is a following word, in the old style (`cbf 20 x.tar`). */
const TAR_VALUED = new Set(['b', 'C', 'f', 'g', 'K', 'L', 'N', 'T', 'V', 'X']);

/** Whether tar's mode writes an archive (create, append, update, catenate, delete); over-reports rather than miss one. */
function tarWrites(args: readonly (string | undefined)[]): boolean {
  const first = args[0];
  if (first !== undefined && !first.startsWith('-') && /[cruA]/.test(first)) return true;
  return args.some((word) => {
    if (word === undefined || !word.startsWith('-')) return false;
    if (!word.startsWith('--')) return /[cruA]/.test(word.slice(1));
    const given = word.slice(2).split('=')[0]!;
    return [['create', 2], ['append', 2], ['update', 2], ['catenate', 3], ['concatenate', 4], ['delete', 3]].some(
      ([name, shortest]) => given.length >= (shortest as number) && (name as string).startsWith(given),
    );
  });
}

/** The archive a tar that writes one writes (`-f`, `--file`, or the old style's f); undefined when it writes none or names none. */
export function tarArchiveWritten(args: readonly (string | undefined)[]): string | undefined {
  if (!tarWrites(args)) return undefined;
  const first = args[0];
  if (first !== undefined && !first.startsWith('-') && first.includes('f')) {
    const before = [...first.slice(0, first.indexOf('f'))].filter((letter) => TAR_VALUED.has(letter)).length;
    return args[1 + before];
  }
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === undefined || !word.startsWith('-')) continue;
    if (word.startsWith('--file=')) return word.slice('--file='.length);
    if (word === '--file') return args[i + 1];
    if (!word.startsWith('--') && word.includes('f')) {
      const rest = word.slice(word.indexOf('f') + 1);
      return rest !== '' ? rest : args[i + 1];
    }
  }
  return undefined;
}
