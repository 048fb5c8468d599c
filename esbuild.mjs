// Bundles the entry points: the VS Code extension (vscode stays external),
// the `crow` binary (CLI and ACP server in one file with a shebang), the
// browser code of the webviews (dist/webview/: viewer.js and viewer.css, served
// by `crow trace --serve`) and the suites that run inside VS Code (.vscode-test.mjs).
// `node esbuild.mjs --watch` rebuilds on change.
import { chmodSync } from 'node:fs';
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
};

const builds = [
  {
    ...common,
    entryPoints: ['src/adapters/vscode/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: ['src/adapters/cli/crow.ts'],
    outfile: 'dist/crow.js',
    banner: { js: '#!/usr/bin/env node' },
    // ripgrep finds its platform binary relative to its own folder; the MCP SDK is large and only
    // needed once a session has MCP servers. Both are runtime dependencies, loaded from node_modules.
    external: ['@vscode/ripgrep', '@modelcontextprotocol/sdk'],
  },
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    entryPoints: { viewer: 'webview/trace-viewer/main.ts' },
    outdir: 'dist/webview',
  },
  {
    ...common,
    entryPoints: ['test/vscode/*.test.ts'],
    outdir: 'dist/test/vscode',
    external: ['vscode', 'mocha'],
  },
];

if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
  console.error('esbuild: watching for changes…');
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
  chmodSync('dist/crow.js', 0o755);
}
