/**
 * The layering of docs/architecture.md, checked on every import in src/: a module may
 * import its own layer or a lower one, never a higher one, and no chain of
 * imports (type-only ones included) leads back to where it started.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(__dirname, '../../src');

/** Top to bottom: each layer may use the ones after it. */
const LAYERS = ['adapters', 'transcript', 'eval', 'attempts', 'host', 'speckit', 'agents', 'journal', 'mcp', 'engine', 'session', 'tools', 'telemetry', 'llm', 'config', 'vocabulary'];

/** Layers that stand apart (none since testkit/, the fake LLM server, left src/: see the test below). */
const STANDALONE = new Set<string>();

/** The test kit (the fake model servers and their rules), beside src/: tests, bench and the demo use it; the product never does. */
const TESTKIT = resolve(__dirname, '../../testkit');

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const WEBVIEW = resolve(__dirname, '../../webview');

/** Every module specifier a file imports, as written. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3] ?? match[4]!,
  );
}

/** The project files (src/ and webview/) a file imports, resolved to paths. */
function projectImportsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolveModule(dirname(file), specifier))
    .filter((path): path is string => path !== undefined);
}

/** The src/ files a file imports (relative specifiers only), resolved to paths. */
function importsOf(file: string): string[] {
  return projectImportsOf(file).filter((path) => path.startsWith(SRC));
}

function resolveModule(from: string, specifier: string): string | undefined {
  const base = resolve(from, specifier.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  return undefined;
}

function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0]!;
}

describe('layering (docs/architecture.md)', () => {
  const files = sources(SRC);
  const graph = new Map(files.map((file) => [file, importsOf(file)]));

  it('knows the layer of every folder in src/', () => {
    const unknown = [...new Set(files.map(layerOf))].filter((layer) => !LAYERS.includes(layer) && !layer.endsWith('.ts'));
    assert.deepEqual(unknown, [], 'add new top-level folders to LAYERS, in their place');
  });

  it('has no import from a lower layer into a higher one', () => {
    const inversions: string[] = [];
    for (const [file, imports] of graph) {
      const from = layerOf(file);
      for (const target of imports) {
        const to = layerOf(target);
        const upward = LAYERS.indexOf(to) < LAYERS.indexOf(from);
        const intoStandalone = STANDALONE.has(to) && from !== to;
        const outOfStandalone = STANDALONE.has(from) && from !== to;
        if (upward || intoStandalone || outOfStandalone) inversions.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
    assert.deepEqual(inversions, []);
  });

  it('has no import cycle, in src/ or in webview/', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const everything = new Map([...graph, ...sources(WEBVIEW).map((file): [string, string[]] => [file, projectImportsOf(file)])]);
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const target of everything.get(file) ?? []) {
        if (state.get(target) === 'open') {
          cycles.push(stack.slice(stack.indexOf(target)).concat(target).map((path) => relative(SRC, path)).join(' → '));
        } else if (!state.has(target)) {
          visit(target);
        }
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of everything.keys()) if (!state.has(file)) visit(file);
    assert.deepEqual(cycles, []);
  });

  it('keeps the test kit out of the product: nothing in src/ imports testkit/, and testkit/ imports nothing of src/', () => {
    const intoKit = files.flatMap((file) => projectImportsOf(file).filter((target) => target.startsWith(TESTKIT)).map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`));
    const outOfKit = sources(TESTKIT).flatMap((file) => projectImportsOf(file).filter((target) => !target.startsWith(TESTKIT)).map((target) => `${relative(TESTKIT, file)} → ${target}`));
    assert.deepEqual([...intoKit, ...outOfKit], []);
  });

  it('lets only src/adapters/vscode/ import vscode: the engine runs in plain Node', () => {
    const outside = files.filter((file) => !relative(SRC, file).startsWith('adapters/vscode/') && specifiersOf(file).includes('vscode'));
    assert.deepEqual(outside.map((file) => relative(SRC, file)), []);
  });

  it('keeps the front doors apart: no adapter imports another, but the CLI starts the ACP server (crow acp)', () => {
    const crossings: string[] = [];
    for (const [file, imports] of graph) {
      const [top, door] = relative(SRC, file).split('/');
      if (top !== 'adapters') continue;
      for (const target of imports) {
        const [targetTop, targetDoor] = relative(SRC, target).split('/');
        if (targetTop !== 'adapters' || targetDoor === door || (door === 'cli' && targetDoor === 'acp')) continue;
        crossings.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
    assert.deepEqual(crossings, []);
  });

  it('reaches webview/ (browser code) only through its shared message and data modules', () => {
    const shared = /^(chat|trace-viewer|eval-report)\/(protocol|message-checks|report-data)\.ts$/;
    const reaching: string[] = [];
    for (const file of files) {
      for (const target of projectImportsOf(file).filter((path) => path.startsWith(WEBVIEW))) {
        if (!shared.test(relative(WEBVIEW, target))) reaching.push(`${relative(SRC, file)} imports webview/${relative(WEBVIEW, target)}`);
      }
    }
    assert.deepEqual(reaching, []);
  });

  it('keeps webview/ code fit for a browser: nothing it imports, to the last module, uses Node or vscode', () => {
    const NODE_ONLY = /^(node:|vscode$|fs$|path$|os$|child_process$|crypto$|http$|net$|stream$|url$|util$|events$|worker_threads$)/;
    const unfit: string[] = [];
    const seen = new Set<string>();
    const visit = (file: string, from: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of specifiersOf(file)) {
        if (NODE_ONLY.test(specifier)) unfit.push(`${relative(resolve(SRC, '..'), file)} (from ${from}) imports ${specifier}`);
      }
      for (const target of projectImportsOf(file)) visit(target, from);
    };
    for (const file of sources(WEBVIEW)) visit(file, relative(resolve(SRC, '..'), file));
    assert.deepEqual(unfit, []);
  });
});
