/**
 * Syntax highlighting for code blocks: highlight.js's core with the languages
 * a coding agent shows most, registered one by one so the bundle stays small.
 * Each language brings its own aliases (ts, js, sh, py, yml, md, html, rs...).
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, css, diff, go, java, javascript, json, markdown, python, rust, shell, typescript, xml, yaml };

for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['jsonc', 'json5'], { languageName: 'json' });
hljs.registerAliases(['console', 'shellsession'], { languageName: 'shell' });

/**
 * The highlighted HTML of a code block (highlight.js escapes the code), or ''
 * for a language it does not know, which tells markdown-it to escape the code
 * itself. No auto-detection: guessing on every streamed frame costs too much.
 */
export function highlight(code: string, language: string): string {
  const name = language.trim().toLowerCase();
  if (!name || !hljs.getLanguage(name)) return '';
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
}
