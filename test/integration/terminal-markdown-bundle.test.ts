import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const MARKDOWN = resolve(__dirname, '../../dist/markdown.js');

/** The built renderer's output for `markdown`, in a process with colour on (as on a terminal). */
function rendered(markdown: string): string {
  const script = `process.stdout.write(require(${JSON.stringify(MARKDOWN)}).terminalMarkdown(80)(${JSON.stringify(markdown)}))`;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH!, FORCE_COLOR: '3' } });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

/** The distinct colour codes (SGR sequences) in `text`. */
function colours(text: string): Set<string> {
  return new Set(text.match(/\u001b\[[0-9;]*m/g) ?? []);
}

describe("the terminal's markdown renderer, as built (dist/markdown.js)", () => {
  it('highlights code in the common languages, each token in its colour', () => {
    const typescript = rendered('```ts\nconst answer: number = 42; // the answer\nexport function ask(): string { return "why"; }\n```\n');
    assert.match(typescript, /answer/);
    assert.ok(colours(typescript).size >= 4, `too few colours for highlighted code: ${JSON.stringify(typescript)}`);
    const lines: Record<string, string> = {
      python: 'def ask(): return "why"',
      rust: 'fn main() { let x = "a"; }',
      go: 'func main() { x := "a" }',
      ruby: 'def ask; "why"; end',
      yaml: 'key: "value" # note',
      bash: 'echo "$HOME" # home',
      sql: "SELECT name FROM users WHERE id = 'a';",
      kotlin: 'fun main() { val x = "a" }',
      swift: 'func ask() -> String { return "why" }',
    };
    for (const [language, line] of Object.entries(lines)) {
      assert.ok(colours(rendered(`\`\`\`${language}\n${line}\n\`\`\`\n`)).size >= 3, `${language} is highlighted`);
    }
  });

  it('shows a fence naming a language outside the common set as plain code, whole', () => {
    const code = 'main = putStrLn "hello" -- haskell';
    const haskell = rendered(`\`\`\`haskell\n${code}\n\`\`\`\n`);
    assert.ok(haskell.includes(code), `the code is shown as written: ${JSON.stringify(haskell)}`);
  });

  it('carries highlight.js once, with the common grammars only (the bundle holds no other)', () => {
    const bundle = readFileSync(MARKDOWN, 'utf8');
    assert.equal(bundle.match(/function highlight\d*\(codeOrLanguageName, optionsOrCode, ignoreIllegals\)/g)?.length, 1, 'one highlight.js core');
    for (const grammar of ['languages/haskell.js', 'languages/elixir.js', 'languages/fortran.js']) assert.ok(!bundle.includes(grammar), `${grammar} is not bundled`);
    for (const grammar of ['languages/typescript.js', 'languages/python.js', 'languages/rust.js']) assert.ok(bundle.includes(grammar), `${grammar} is bundled`);
  });
});
