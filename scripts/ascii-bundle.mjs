// Makes a Node bundle pure ASCII by writing the non-ASCII characters of its comments (esbuild keeps comments, and
// the characters in them, even with charset ascii) as \u escapes. Node then reads the file as a one-byte string:
// reading and decoding crow-cli.js as UTF-8 took 15-20 ms of every start, as ASCII about 5 ms (src/adapters/cli/launcher.ts).
// Only comments may change: the rewrite is kept only when esbuild prints the code without comments
// identically before and after; otherwise the bundle stays as built and the build says why.
import { readFileSync, writeFileSync } from 'node:fs';
import * as esbuild from 'esbuild';

const NON_ASCII = /[^\x00-\x7f]/g;
const ANY_NON_ASCII = /[^\x00-\x7f]/;

/** True when `file` is ASCII afterwards. */
export async function asciiComments(file) {
  const text = readFileSync(file, 'utf8');
  if (!ANY_NON_ASCII.test(text)) return true;
  const ascii = text.replace(NON_ASCII, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if ((await code(text)) !== (await code(ascii))) {
    const line = text.slice(0, text.search(ANY_NON_ASCII)).split('\n').length;
    console.warn(
      `${file}: non-ASCII characters outside comments (the first on line ${line}); Node reads the bundle more slowly. ` +
        'Write them as \\u escapes in the source (a regular expression\'s, say).',
    );
    return false;
  }
  writeFileSync(file, ascii);
  return true;
}

/** The bundle's code without comments or layout, strings printed by value. */
async function code(text) {
  return (await esbuild.transform(text, { loader: 'js', minifyWhitespace: true, legalComments: 'none', charset: 'utf8', logLevel: 'silent' })).code;
}
