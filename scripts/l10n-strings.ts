/**
 * The extension's translatable words, read from its sources the way
 * `@vscode/l10n-dev export` reads them (that tool is not installed here):
 * every `t('…')` call and every t`…` tagged template in src/adapters/vscode/,
 * the chat webview (webview/chat/) and the trace viewer
 * (webview/trace-viewer/, translated when VS Code's trace panel hosts it), the
 * eval report's page and script (as VS Code's Crow: Run Eval shows it), and
 * the tool cards' words (SHARED_WORDING), in the files that import `t` from
 * their l10n.ts (@vscode/l10n's, in the extension host and in the webview). A template's
 * values become {0}, {1}, … in its key, as @vscode/l10n numbers them.
 *
 * `scripts/l10n-export.ts` writes l10n/bundle.l10n.json from this;
 * test/unit/adapters/vscode/l10n.test.ts checks the file matches the sources
 * and that the messages, pickers and notices of the adapter go through `t`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const ROOT = join(__dirname, '..');
export const ADAPTER = join(ROOT, 'src', 'adapters', 'vscode');
export const CHAT_WEBVIEW = join(ROOT, 'webview', 'chat');
export const TRACE_VIEWER = join(ROOT, 'webview', 'trace-viewer');
export const EVAL_REPORT = join(ROOT, 'webview', 'eval-report');
/**
 * Wording shared with the CLI whose messages are written as `t('…')` with
 * `t` a parameter (VS Code passes its own, the CLI none): read like the
 * files that import `t`.
 */
export const SHARED_WORDING = [join(ROOT, 'src', 'vocabulary', 'tool-story.ts'), join(ROOT, 'src', 'transcript', 'words.ts'), join(ROOT, 'src', 'transcript', 'failure-words.ts'), join(ROOT, 'src', 'transcript', 'transcript-model.ts'), join(ROOT, 'src', 'eval', 'eval-report.ts')];
export const BUNDLE = join(ROOT, 'l10n', 'bundle.l10n.json');

export interface Found {
  /** The bundle key: the English message, values as {n}. */
  key: string;
  /** file:line, for messages that point at the source. */
  where: string;
}

/** Problems make the export fail: a `t` whose message is not written out cannot be translated. */
export interface Extracted {
  found: Found[];
  problems: string[];
}

export function adapterSources(dir = ADAPTER): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return adapterSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

export function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

export function where(source: ts.SourceFile, node: ts.Node): string {
  const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
  return `${relative(ROOT, source.fileName)}:${line + 1}`;
}

/** The messages of every `t` in `files` that import it from an l10n module. */
export function extract(files: string[] = [...adapterSources(), ...adapterSources(CHAT_WEBVIEW), ...adapterSources(TRACE_VIEWER), ...adapterSources(EVAL_REPORT), ...SHARED_WORDING]): Extracted {
  const found: Found[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const source = parse(file);
    if (!importsT(source) && !SHARED_WORDING.includes(file)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isTaggedTemplateExpression(node) && isT(node.tag)) {
        found.push({ key: templateKey(node.template), where: where(source, node) });
      } else if (ts.isCallExpression(node) && isT(node.expression)) {
        const first = node.arguments[0];
        if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) found.push({ key: first.text, where: where(source, node) });
        else problems.push(`${where(source, node)}: t() takes its message as a string literal (or write t\`…\`), so the export can read it`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { found, problems };
}

function importsT(source: ts.SourceFile): boolean {
  return source.statements.some(
    (statement) =>
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      /(^|\/)l10n$/.test(statement.moduleSpecifier.text) &&
      statement.importClause?.namedBindings !== undefined &&
      ts.isNamedImports(statement.importClause.namedBindings) &&
      statement.importClause.namedBindings.elements.some((element) => element.name.text === 't'),
  );
}

function isT(node: ts.Node): boolean {
  return ts.isIdentifier(node) && node.text === 't';
}

function templateKey(template: ts.TemplateLiteral): string {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
  return template.templateSpans.reduce((key, span, index) => `${key}{${index}}${span.literal.text}`, template.head.text);
}

/** The English bundle: each key maps to itself, sorted, as l10n-dev writes it. */
export function bundleOf(found: Found[]): Record<string, string> {
  const keys = [...new Set(found.map((entry) => entry.key))].sort();
  return Object.fromEntries(keys.map((key) => [key, key]));
}

export function bundleText(found: Found[]): string {
  return `${JSON.stringify(bundleOf(found), null, 2)}\n`;
}
