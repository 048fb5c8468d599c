/**
 * The layering of DESIGN.md, checked on every import in src/: a module may
 * import its own layer or a lower one, never a higher one, and no chain of
 * imports (type-only ones included) leads back to where it started.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(__dirname, '../../src');

/** Top to bottom: each layer may use the ones after it. */
const LAYERS = ['adapters', 'eval', 'host', 'speckit', 'agents', 'mcp', 'engine', 'session', 'tools', 'telemetry', 'llm', 'config', 'testing'];

/** `testing/` (the fake LLM server) stands apart: used by tests, bench and the demo, it uses nothing of the engine. */
const STANDALONE = new Set(['testing']);

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The src/ files a file imports (relative specifiers only), resolved to paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3]!,
  );
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolveModule(dirname(file), specifier))
    .filter((path): path is string => path !== undefined && path.startsWith(SRC));
}

function resolveModule(from: string, specifier: string): string | undefined {
  const base = resolve(from, specifier.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  return undefined;
}

function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0]!;
}

describe('layering (DESIGN.md)', () => {
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

  it('has no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open') {
          cycles.push(stack.slice(stack.indexOf(target)).concat(target).map((path) => relative(SRC, path)).join(' → '));
        } else if (!state.has(target)) {
          visit(target);
        }
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    assert.deepEqual(cycles, []);
  });
});
