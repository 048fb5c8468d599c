/**
 * The terminal's line-by-line markdown: what each line of an answer costs to
 * render as it ends (a paragraph, code in a fence that names its language,
 * code in one that names none, whose language is guessed from its first
 * lines), and the time a whole 2,000-line answer spends in rendering, so a
 * long code block never makes the answer lag behind the model.
 */
import { MarkdownStream } from '../src/adapters/cli/markdown-stream';
import { terminalMarkdown } from '../src/adapters/cli/terminal-markdown';
import { fmt } from './common';

const LINES = 2_000;

function answer(fence: string): string {
  const code = Array.from({ length: LINES / 2 }, (_, i) => `const value${i} = compute(items[${i}], { deep: true }); // step ${i}`);
  const prose = Array.from({ length: LINES / 2 }, (_, i) => `Line ${i} says **something** with \`code\` and a [link](https://example.com/${i}).`);
  return `${prose.join('\n')}\n\n${fence}\n${code.join('\n')}\n\`\`\`\n`;
}

export async function terminalStreamBenchmark(): Promise<void> {
  const render = terminalMarkdown(100);
  console.log(`Terminal markdown, line by line: a ${LINES.toLocaleString()}-line answer (half prose, half code) in 7-character pieces`);
  for (const [label, fence] of [['code fence names js', '```js'], ['code fence names none', '```']] as const) {
    let written = 0;
    const stream = new MarkdownStream((text) => void (written += text.length), render, { columns: () => 100, rows: () => 40 });
    const text = answer(fence);
    const started = performance.now();
    for (let at = 0; at < text.length; at += 7) stream.push(text.slice(at, at + 7));
    stream.flush();
    const ms = performance.now() - started;
    console.log(`  ${label.padEnd(22)} ${fmt(ms)} ms in all · ${(ms / LINES).toFixed(3)} ms a line · ${fmt(written)} characters written`);
  }
}
