/**
 * The README and docs/ as a reader follows them: every link to a file of the
 * repository resolves, and to a heading, that heading exists; every path
 * of the repository they name in code (`src/host/`, `test/unit/layers.test.ts`)
 * exists; every code symbol they name in CamelCase (`HostSession`,
 * `defineTool`) is defined in the sources. A doc that drifted from the code
 * fails here, naming the file and what it names.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const DOCS = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join(ROOT, 'docs', name))];
/** Folders whose paths the docs may name, as written from the repository's root. */
const NAMED_ROOTS = /^(src|test|testkit|scripts|bench|eval|webview|docs|agents|commands|prompts|registry|media|l10n|\.ci|\.github)\//;
/** Where a named symbol must be defined. */
const SOURCE_ROOTS = ['src', 'webview', 'testkit', 'test/support', 'scripts', 'bench'];
/** Names the docs use in CamelCase that belong to platforms, protocols and libraries, not to Crow's sources. */
const FOREIGN = new Set([
  'AbortController', 'AbortSignal', 'JavaScript', 'TypeScript', 'GitHub', 'OpenAI', 'OpenRouter', 'DeepSeek', 'LiteLLM', 'JetBrains',
  'IntelliJ', 'PyCharm', 'WebStorm', 'GoLand', 'PowerShell', 'NuGet', 'SearXNG', 'LMStudio', 'VSCode', 'WorkspaceEdit', 'TextEditor',
  'SecretStorage', 'LanguageModelChat', 'ChatParticipant', 'QuickPick', 'TreeView', 'WebviewView', 'CancellationToken', 'OpenTelemetry',
  'McpServer', 'StdioServerTransport', 'ClientSideConnection', 'AgentSideConnection', 'PromptResponse', 'SessionNotification',
  'ToolCallUpdate', 'RequestPermissionRequest', 'ReadableStream', 'WritableStream', 'TextDecoder', 'TextEncoder', 'ExtensionValidator',
  'GitLab', 'BitBucket', 'AppArmor', 'MacOS', 'iOS', 'YouTube', 'LinkedIn', 'PostgreSQL', 'MySQL', 'SQLite', 'NodeJS', 'WebSocket',
  // Claude Code's hook events and tools that Crow's hooks do not have (docs/hooks.md says so).
  'SessionStart', 'SubagentStop', 'PreCompact', 'NotebookEdit',
  // Windows' folders.
  'WindowsApps',
]);

function markdownFiles(): { file: string; text: string }[] {
  return DOCS.map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = !inFence && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(slug(heading[1]!));
  }
  return anchors;
}

/** Text outside fenced code blocks: links and names in examples are the example's, not the repository's. */
function prose(text: string): string {
  return text.replace(/^\s*(```|~~~)[\s\S]*?^\s*\1.*$/gm, '');
}

let sourcesText: string | undefined;
function sources(): string {
  const read = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : read(path);
      return /\.(ts|mjs|cjs|js)$/.test(entry.name) ? [readFileSync(path, 'utf8')] : [];
    });
  return (sourcesText ??= SOURCE_ROOTS.filter((folder) => existsSync(join(ROOT, folder))).flatMap((folder) => read(join(ROOT, folder))).join('\n'));
}

describe('the docs match the repository', () => {
  it('every relative link resolves, to a file and to a heading in it', () => {
    const broken: string[] = [];
    for (const { file, text } of markdownFiles()) {
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const destination = path === '' ? file : resolve(dirname(file), path);
        if (!existsSync(destination)) {
          broken.push(`${relative(ROOT, file)}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && destination.endsWith('.md') && !anchorsOf(readFileSync(destination, 'utf8')).has(anchor)) {
          broken.push(`${relative(ROOT, file)}: ${target} (no such heading)`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('every path of the repository named in code exists', () => {
    const missing: string[] = [];
    for (const { file, text } of markdownFiles()) {
      for (const [, code] of prose(text).matchAll(/`([^`\s]+)`/g)) {
        const path = code!.replace(/[.,:;)]+$/, '').replace(/:\d+(-\d+)?$/, '');
        // A pattern or a placeholder (`agents/acp/NAME.md`) is not a path; nor is a protocol name (`prompts/list_changed`).
        if (!NAMED_ROOTS.test(path) || /[*{}<>$]|\.\.\.|\b(NAME|ID|N)\b/.test(path)) continue;
        if (!path.endsWith('/') && !path.split('/').at(-1)!.includes('.')) continue;
        // What the tests write (screenshots, reports): made by a run, ignored by git.
        if (path.startsWith('test/artifacts/')) continue;
        if (!existsSync(join(ROOT, path))) missing.push(`${relative(ROOT, file)}: ${path}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('every CamelCase code symbol named is defined in the sources', () => {
    const undefinedNames: string[] = [];
    const defined = (name: string): boolean =>
      new RegExp(`(class|interface|type|function|const|let|enum|namespace)\\s+${name}\\b|\\b${name}\\s*[(:=]|\\.${name}\\b|['"]${name}['"]`).test(sources());
    for (const { file, text } of markdownFiles()) {
      const names = new Set([...prose(text).matchAll(/`([A-Za-z][A-Za-z0-9]*)(?:\(\))?`/g)].map((match) => match[1]!));
      for (const name of names) {
        const camel = /^[A-Z]?[a-z0-9]+([A-Z][a-z0-9]+)+$/.test(name) && /[a-z]/.test(name);
        if (!camel || FOREIGN.has(name)) continue;
        if (!defined(name)) undefinedNames.push(`${relative(ROOT, file)}: ${name}`);
      }
    }
    assert.deepEqual(undefinedNames, []);
  });

  it('keeps the README a five-minute read that sends each task to its page', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.split('\n').length < 250, `README.md has ${readme.split('\n').length} lines`);
    for (const page of readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'))) {
      assert.ok(readme.includes(`docs/${page}`) || statSync(join(ROOT, 'docs', page)).size === 0 || linkedFromDocs(page), `docs/${page} is reachable from the README`);
    }
  });
});

/** Whether another page of docs/ links to `page` (a page the README reaches through another). */
function linkedFromDocs(page: string): boolean {
  return readdirSync(join(ROOT, 'docs')).some((other) => other !== page && other.endsWith('.md') && readFileSync(join(ROOT, 'docs', other), 'utf8').includes(`](${page}`));
}
