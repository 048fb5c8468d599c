/**
 * Spec Kit's implement step that creates or checks ignore files before
 * any task runs: which files apply is read from the project (a git
 * repository: .gitignore; a Dockerfile or Docker in the plan: .dockerignore;
 * an ESLint, Prettier, npm, Terraform or Helm setup: theirs), and which
 * patterns they need from the technologies the plan names (its technical
 * context when it has one). A missing file is created with the whole set;
 * an existing one only gets the patterns it lacks appended under a comment
 * line. The person's own lines are never changed, reordered or removed.
 */
import { writeFileTool } from '../tools/builtin/write-file';
import type { Workspace } from '../tools/workspace';
import type { CommandRun } from './command-run';
import { callTool } from './command-tools';
import { entriesOf, readText } from './workspace-text';

/** Patterns by technology, found in the plan by `words` (case-sensitive ones for the short names). */
const TECHNOLOGIES: { name: string; words: RegExp; patterns: string[] }[] = [
  { name: 'Node.js', words: /\b(node(\.js)?|javascript|typescript|npm|pnpm|yarn|deno|bun|react|vue|angular|next\.js|express)\b/i, patterns: ['node_modules/', 'dist/', 'build/', '*.log', '.env*'] },
  { name: 'Python', words: /\b(python|django|flask|fastapi|pytest|poetry)\b/i, patterns: ['__pycache__/', '*.pyc', '.venv/', 'venv/', 'dist/', '*.egg-info/'] },
  { name: 'Java', words: /\b(java|spring( boot)?|maven|gradle)\b(?!script)/i, patterns: ['target/', '*.class', '*.jar', '.gradle/', 'build/'] },
  { name: '.NET', words: /(\bC#|\.NET\b|\bdotnet\b|\bASP\.NET\b)/i, patterns: ['bin/', 'obj/', '*.user', '*.suo', 'packages/'] },
  { name: 'Go', words: /\b(Go \d|Go\b(?!\w)|golang)/, patterns: ['*.exe', '*.test', 'vendor/', '*.out'] },
  { name: 'Ruby', words: /\b(ruby|rails)\b/i, patterns: ['.bundle/', 'log/', 'tmp/', '*.gem', 'vendor/bundle/'] },
  { name: 'PHP', words: /\b(php|laravel|symfony|composer)\b/i, patterns: ['vendor/', '*.log', '*.cache', '*.env'] },
  { name: 'Rust', words: /\b(rust|cargo)\b/i, patterns: ['target/', 'debug/', 'release/', '*.rs.bk', '*.rlib', '*.prof*', '.idea/', '*.log', '.env*'] },
  { name: 'Kotlin', words: /\bkotlin\b/i, patterns: ['build/', 'out/', '.gradle/', '.idea/', '*.class', '*.jar', '*.iml', '*.log', '.env*'] },
  { name: 'C++', words: /(\bC\+\+|\bcpp\b|\bCMake\b)/i, patterns: ['build/', 'bin/', 'obj/', 'out/', '*.o', '*.so', '*.a', '*.exe', '*.dll', '.idea/', '*.log', '.env*'] },
  { name: 'C', words: /\bC(?![+#\w])(\d\d)?\b/, patterns: ['build/', 'bin/', 'obj/', 'out/', '*.o', '*.a', '*.so', '*.exe', '*.dll', 'autom4te.cache/', 'config.status', 'config.log', '.idea/', '*.log', '.env*'] },
  { name: 'Swift', words: /\b(swift|swiftui)\b/i, patterns: ['.build/', 'DerivedData/', '*.swiftpm/', 'Packages/'] },
  { name: 'R', words: /\bR(?![\w'-])/, patterns: ['.Rproj.user/', '.Rhistory', '.RData', '.Ruserdata', '*.Rproj', 'packrat/', 'renv/'] },
];
const UNIVERSAL = ['.DS_Store', 'Thumbs.db', '*.tmp', '*.swp', '.vscode/', '.idea/'];
const TOOL_PATTERNS: Record<string, string[]> = {
  '.dockerignore': ['node_modules/', '.git/', 'Dockerfile*', '.dockerignore', '*.log*', '.env*', 'coverage/'],
  '.eslintignore': ['node_modules/', 'dist/', 'build/', 'coverage/', '*.min.js'],
  '.prettierignore': ['node_modules/', 'dist/', 'build/', 'coverage/', 'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml'],
  '.npmignore': ['node_modules/', '*.log', '.env*', 'coverage/', 'tests/'],
  '.terraformignore': ['.terraform/', '*.tfstate*', '*.tfvars', '.terraform.lock.hcl'],
  '.helmignore': ['.git/', '.gitignore', '*.swp', '*.tmp', '.DS_Store', '.vscode/', '.idea/'],
};
export const ADDED_MARK = '# Added by /speckit.implement (ignore-file check)';

export interface IgnoreFile {
  path: string;
  /** Why it applies: "a git repository", "Dockerfile", … */
  reason: string;
  /** Its text now; undefined when it does not exist yet. */
  existing?: string;
  /** The patterns it lacks, in order. */
  missing: string[];
}

/** The technologies the plan names (its technical context when it has one). */
export function technologiesIn(plan: string): string[] {
  const context = /^#+\s*Technical Context\b[\s\S]*?(?=^#+\s)/im.exec(plan)?.[0] ?? plan;
  return TECHNOLOGIES.filter((t) => t.words.test(context)).map((t) => t.name);
}

/** The ignore files the project needs and what each lacks (those that lack nothing are left out). */
export async function ignoreFilesNeeded(workspace: Workspace, plan: string): Promise<IgnoreFile[]> {
  const names = (await entriesOf(workspace, '.')).map((entry) => entry.name);
  const has = (pattern: RegExp): string | undefined => names.find((name) => pattern.test(name));
  const technologies = technologiesIn(plan);
  const forCode = [...new Set(TECHNOLOGIES.filter((t) => technologies.includes(t.name)).flatMap((t) => t.patterns))];
  const wanted: { path: string; reason: string; patterns: string[] }[] = [];
  if (names.includes('.git')) wanted.push({ path: '.gitignore', reason: `a git repository${technologies.length > 0 ? `; the plan names ${technologies.join(', ')}` : ''}`, patterns: [...forCode, ...UNIVERSAL] });
  const docker = has(/^Dockerfile/) ?? (/\bdocker\b/i.test(plan) ? 'Docker in the plan' : undefined);
  if (docker) wanted.push({ path: '.dockerignore', reason: docker, patterns: TOOL_PATTERNS['.dockerignore']! });
  const eslint = has(/^\.eslintrc/);
  if (eslint) wanted.push({ path: '.eslintignore', reason: eslint, patterns: TOOL_PATTERNS['.eslintignore']! });
  const prettier = has(/^\.prettierrc/);
  if (prettier) wanted.push({ path: '.prettierignore', reason: prettier, patterns: TOOL_PATTERNS['.prettierignore']! });
  // Spec Kit wants .npmignore only for a package that is published: one is checked when the person has made it.
  if (names.includes('.npmignore')) wanted.push({ path: '.npmignore', reason: 'an .npmignore', patterns: TOOL_PATTERNS['.npmignore']! });
  const terraform = has(/\.tf$/);
  if (terraform) wanted.push({ path: '.terraformignore', reason: terraform, patterns: TOOL_PATTERNS['.terraformignore']! });
  if (names.includes('Chart.yaml')) wanted.push({ path: '.helmignore', reason: 'Chart.yaml', patterns: TOOL_PATTERNS['.helmignore']! });
  const needed: IgnoreFile[] = [];
  for (const file of wanted) {
    const existing = await readText(workspace, file.path);
    const present = new Set((existing ?? '').split(/\r?\n/).map(normalized));
    const missing = file.patterns.filter((pattern) => !present.has(normalized(pattern)));
    if (missing.length > 0) needed.push({ path: file.path, reason: file.reason, ...(existing !== undefined ? { existing } : {}), missing });
  }
  return needed;
}

/** "/dist/" and "dist" name the same thing as "dist/" for this check. */
function normalized(line: string): string {
  return line.trim().replace(/^\//, '').replace(/\/$/, '');
}

/** The file's new text: the existing text kept byte for byte, the missing patterns after it. */
export function withMissing(file: IgnoreFile): string {
  const added = `${ADDED_MARK}\n${file.missing.join('\n')}\n`;
  if (file.existing === undefined || file.existing === '') return added;
  const newline = file.existing.includes('\r\n') ? '\r\n' : '\n';
  const gap = file.existing.endsWith('\n') ? newline : `${newline}${newline}`;
  return `${file.existing}${gap}${added.replace(/\n/g, newline)}`;
}

/**
 * The step itself: each file that needs it is written with write_file, so
 * the permission policy decides and the person sees the change; a refused
 * write is reported with what to add, and the tasks go on. Returns the
 * files written.
 */
export async function ignoreFileStep(run: CommandRun, planPath: string): Promise<string[]> {
  const needed = await ignoreFilesNeeded(run.input.workspace, (await readText(run.input.workspace, planPath)) ?? '');
  const lines: string[] = [];
  const written: string[] = [];
  for (const file of needed) {
    const result = await callTool(run, writeFileTool, { path: file.path, content: withMissing(file) });
    if (result.status === 'success') {
      written.push(file.path);
      const what = file.existing === undefined ? `created (${file.missing.join(', ')})` : `appended what it lacked (${file.missing.join(', ')}), your lines untouched`;
      lines.push(`${file.path} for ${file.reason}: ${what}`);
    } else {
      lines.push(`${file.path} for ${file.reason}: not written (${(result.error ?? result.output).split('\n')[0]}); add ${file.missing.join(', ')} yourself`);
    }
  }
  if (lines.length > 0) run.say(`Ignore files, before the tasks:\n${lines.map((line) => `- ${line}`).join('\n')}`);
  return written;
}
