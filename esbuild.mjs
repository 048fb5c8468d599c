// Bundles the entry points: the VS Code extension (dist/extension.js, small, and the engine it
// loads on first use, dist/engine.js; vscode stays external), the `crow` binary (dist/crow.js, a
// launcher with a shebang that turns on V8's compile cache, then loads the CLI and ACP server in
// one file, dist/crow-cli.js, or `crow trace` alone from dist/crow-trace.js; dist/markdown.js, the terminal markdown renderer it loads
// only when a run writes to a terminal, dist/otlp.js, the span exporter it loads only when
// an OTLP endpoint is set, and dist/bedrock.js and dist/vertex.js, the cloud SDKs a run on
// Claude on Amazon Bedrock or Google Vertex AI loads), the browser code of the webviews (dist/webview/: the chat
// view, the trace viewer, also served by `crow trace --serve`, and the charts of `crow eval`'s report) and the suites that run inside
// VS Code (npm run test:vscode and .vscode-test.mjs).
// `node esbuild.mjs --watch` rebuilds on change.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';
import { asciiComments } from './scripts/ascii-bundle.mjs';

const watch = process.argv.includes('--watch');
// `--production` (npm run package): minified, no source maps, no test bundles, and a crow binary
// with no runtime node_modules (the .vsix ships none; rg then comes from PATH or VS Code).
const production = process.argv.includes('--production');
// `--out DIR`: the bundles go to DIR instead of dist/. `--cli`: only what the crow binary loads (no extension,
// engine or VS Code suites). npm run pack:npm builds the npm package's dist/ this way (scripts/pack-npm.ts).
const outAt = process.argv.indexOf('--out');
const out = outAt >= 0 ? process.argv[outAt + 1] : 'dist';
if (!out || out.startsWith('--')) throw new Error('esbuild.mjs: --out needs a folder');
const cliOnly = process.argv.includes('--cli');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

/**
 * zod taken as a package with side effects. Its package.json says most of its files have none, and
 * esbuild (0.28) then leaves out the call that initialises a lazily wrapped ES module reached through
 * `import * as z` and `export *` (zod is wrapped where another package requires it): dist/engine.js
 * failed at load with "Class is not a constructor". Marking the import as having side effects keeps
 * that call; src/ keeps `import * as z`, whose direct references are smaller and faster to load.
 */
const zodInitialised = {
  name: 'zod-initialised',
  setup(build) {
    build.onResolve({ filter: /^zod(\/.*)?$/ }, async (args) => {
      if (args.pluginData?.zodInitialised) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { zodInitialised: true } });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, namespace: resolved.namespace, sideEffects: true };
    });
  },
};

/** Every build's own plugins, after the one every bundle with zod needs. */
const withZod = (options) => ({ ...options, plugins: [zodInitialised, ...(options.plugins ?? [])] });

/**
 * The extension's `require('./engine-bundle')` stays a require of dist/engine.js: activation then parses a
 * small file, and the engine (SDKs, tools, sessions) is read only when first used.
 */
const engineApart = {
  name: 'engine-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/engine-bundle$/ }, (args) =>
      args.importer.includes(join('src', 'adapters', 'vscode')) ? { path: './engine.js', external: true } : undefined,
    );
  },
};

/** An esbuild plugin that leaves `require(specifier)` as a require of `./bundle` beside the output: a bundle loaded only when used. */
function apart(name, specifier, bundle) {
  return {
    name,
    setup(build) {
      build.onResolve({ filter: specifier }, () => ({ path: `./${bundle}`, external: true }));
    },
  };
}

/** crow.js's `require('./terminal-markdown')` stays a require of dist/markdown.js: see terminal-markdown.ts. */
const markdownApart = apart('markdown-apart', /^\.\/terminal-markdown$/, 'markdown.js');

/**
 * crow.js's `require('../telemetry/otlp-export')` stays a require of dist/otlp.js: the OpenTelemetry
 * exporter (a seventh of the binary: exporter, transformer, metrics SDK, conventions) is parsed only
 * by a session that exports spans, not at every start of `crow acp`.
 */
const otlpApart = apart('otlp-apart', /^\.\.\/telemetry\/otlp-export$/, 'otlp.js');

/**
 * `require('./bedrock-endpoint')` and `require('./vertex-endpoint')` (llm/index.ts) stay requires of
 * dist/bedrock.js and dist/vertex.js: the cloud SDKs (AWS signing, event streams and credential chain;
 * google-auth-library), with a copy of the Anthropic SDK each, are read only by a run on that cloud.
 */
const cloudApart = [apart('bedrock-apart', /^\.\/bedrock-endpoint$/, 'bedrock.js'), apart('vertex-apart', /^\.\/vertex-endpoint$/, 'vertex.js')];

/** The launcher's `require('./crow-cli')` stays a require of dist/crow-cli.js: it turns the compile cache on first. */
const cliApart = apart('cli-apart', /^\.\/crow-cli$/, 'crow-cli.js');
/** Likewise its `require('./crow-trace')`: dist/crow-trace.js, `crow trace` alone (src/adapters/cli/crow-trace.ts). */
const traceApart = apart('trace-apart', /^\.\/crow-trace$/, 'crow-trace.js');

/**
 * In dist/markdown.js, marked-terminal's highlighter (cli-highlight) asks for all of highlight.js, whose 190
 * grammars took most of the file's load (about 60 ms of a run on a terminal). It gets the common languages
 * the renderer registers instead (see terminal-markdown.ts): one instance, 37 grammars.
 */
const commonHighlight = {
  name: 'common-highlight',
  setup(build) {
    build.onResolve({ filter: /^highlight\.js$/ }, (args) => build.resolve('highlight.js/lib/common', { kind: args.kind, resolveDir: args.resolveDir }));
  },
};

const builds = [
  !cliOnly && {
    ...common,
    entryPoints: ['src/adapters/vscode/extension.ts'],
    outfile: `${out}/extension.js`,
    external: ['vscode', '@napi-rs/keyring'],
    plugins: [engineApart],
  },
  !cliOnly && {
    ...common,
    entryPoints: ['src/adapters/vscode/engine-bundle.ts'],
    outfile: `${out}/engine.js`,
    // The OS keychain binding (config/os-keychain.ts) is a native module, required only where installed.
    external: ['vscode', '@napi-rs/keyring'],
    plugins: cloudApart,
  },
  {
    ...common,
    entryPoints: ['src/adapters/cli/crow.ts'],
    outfile: `${out}/crow-cli.js`,
    // The MCP SDK is large and only needed once a session has MCP servers: loaded from node_modules,
    // except in the .vsix (no node_modules), where it is bundled.
    // The OS keychain binding is a native module: never bundled, required on first use where it is installed
    // (an optional dependency; without it crow login keeps keys in a private file).
    external: production ? ['@napi-rs/keyring'] : ['@modelcontextprotocol/sdk', '@napi-rs/keyring'],
    plugins: [markdownApart, otlpApart, ...cloudApart],
  },
  {
    ...common,
    entryPoints: ['src/adapters/cli/crow-trace.ts'],
    outfile: `${out}/crow-trace.js`,
  },
  {
    ...common,
    entryPoints: ['src/llm/bedrock-endpoint.ts'],
    outfile: `${out}/bedrock.js`,
  },
  {
    ...common,
    entryPoints: ['src/llm/vertex-endpoint.ts'],
    outfile: `${out}/vertex.js`,
  },
  {
    ...common,
    entryPoints: ['src/adapters/cli/terminal-markdown.ts'],
    outfile: `${out}/markdown.js`,
    plugins: [commonHighlight],
  },
  {
    ...common,
    entryPoints: ['src/telemetry/otlp-export.ts'],
    outfile: `${out}/otlp.js`,
  },
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    // markdown-it's entity tables and highlight.js's grammars halve when minified; source maps stay.
    minify: true,
    entryPoints: {
      viewer: 'webview/trace-viewer/main.ts',
      chat: 'webview/chat/main.ts',
      'eval-report': 'webview/eval-report/main.ts',
      // The chat's icons: a stylesheet of its own (the chat page links it with the id @vscode-elements looks for).
      codicon: 'node_modules/@vscode/codicons/dist/codicon.css',
    },
    outdir: `${out}/webview`,
    // The codicon font, beside codicon.css as dist/webview/codicon.ttf (served through asWebviewUri).
    loader: { '.ttf': 'file' },
    assetNames: '[name]',
  },
  !production && !cliOnly && {
    ...common,
    // The index the extension host loads (npm run test:vscode) and every suite it runs; test/vscode/support/
    // is bundled into the suites that use it. mocha loads from node_modules at run time.
    entryPoints: ['test/vscode/index.ts', 'test/vscode/**/*.test.ts'],
    outbase: 'test/vscode',
    outdir: `${out}/test/vscode`,
    external: ['vscode', 'mocha'],
  },
];

/**
 * dist/crow.js, the launcher, with `bundleSha256` (SHA-256 of dist/crow-cli.js as written) embedded: the key of its
 * code cache then changes with the bundle's content, and no start hashes 4.5 MB. Built after the bundle; in watch
 * mode with none (the bundle changes under it), which turns the launcher's own code cache off.
 */
const launcher = (bundleSha256) =>
  withZod({
    ...common,
    entryPoints: ['src/adapters/cli/launcher.ts'],
    outfile: `${out}/crow.js`,
    banner: { js: '#!/usr/bin/env node' },
    define: { CROW_BUNDLE_SHA256: JSON.stringify(bundleSha256) },
    plugins: [cliApart, traceApart],
  });

const selected = builds.filter(Boolean).map(withZod);
// A deleted suite must not keep running from its old bundle.
rmSync(join(out, 'test', 'vscode'), { recursive: true, force: true });
if (watch) {
  rmSync(join(out, 'builtin-definitions.json'), { force: true });
  for (const options of [...selected, launcher('')]) await (await esbuild.context(options)).watch();
  console.error('esbuild: watching for changes…');
} else {
  await Promise.all(selected.map((options) => esbuild.build(options)));
  // The bundles Node loads, read faster as ASCII (see scripts/ascii-bundle.mjs).
  await Promise.all(selected.filter((options) => options.platform === 'node' && options.outfile).map((options) => asciiComments(options.outfile)));
  await esbuild.build(launcher(createHash('sha256').update(readFileSync(join(out, 'crow-cli.js'))).digest('hex')));
  await asciiComments(join(out, 'crow.js'));
  chmodSync(join(out, 'crow.js'), 0o755);
  await writeBuiltinSnapshot();
}

/**
 * dist/builtin-definitions.json: the built-in agent and slash command definitions parsed by this build's parsers (see
 * src/config/builtin-snapshot.ts), so a start of crow does not parse their front matter again.
 * Not in watch mode, where the parser may change under it (the bundles then parse as ever).
 */
async function writeBuiltinSnapshot() {
  const script = join(mkdtempSync(join(tmpdir(), 'crow-build-')), 'snapshot.js');
  try {
    await esbuild.build(withZod({ ...common, sourcemap: false, minify: false, entryPoints: ['scripts/builtin-definitions-snapshot.ts'], outfile: script }));
    execFileSync(process.execPath, [script, process.cwd(), join(out, 'builtin-definitions.json')], { stdio: 'inherit' });
  } finally {
    rmSync(dirname(script), { recursive: true, force: true });
  }
}
