/**
 * The `crow` binary (dist/crow.js): loads the CLI bundle (dist/crow-cli.js)
 * so that a later run compiles it from V8's code cache instead of from its
 * 4.5 MB of source. The launcher keeps the bundle's code cache itself (see
 * loadWithCodeCache), on every Node: written after a run, it holds the
 * functions that ran, which Node's compile cache (module.enableCompileCache,
 * Node 22.1+; written before they run) does not: on Node 22 a one-shot run
 * started about 40 ms sooner from the launcher's cache. Where Node offers
 * its compile cache it is turned on as well, for the modules loaded later
 * (the terminal markdown renderer, the OTLP exporter, the MCP SDK).
 * Both caches hold code this process runs, so they are used only from a
 * folder of crow's own (config/private-files.ts: this user's, 0700, nothing
 * above it another user can change), and the launcher's cache file only
 * when it is this user's own 0600 file, read without following a link; a
 * file that fails is removed and written anew, a folder that fails is not
 * used at all (the run is only slower). The cache's name carries the
 * bundle's content hash, computed by the build (esbuild.mjs) and embedded
 * here, besides its size and time: V8 itself checks only the source's
 * length. NODE_DISABLE_COMPILE_CACHE turns both off. `crow trace` alone
 * loads a bundle of its own instead (dist/crow-trace.js, Node's compile
 * cache only).
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { cacheHome } from '../../config/paths';
import { privateFolderProblem, readPrivateFile, removeEntry, writePrivateFile } from '../../config/private-files';

const BUNDLE = join(__dirname, 'crow-cli.js');

/** SHA-256 of dist/crow-cli.js as the build wrote it (esbuild.mjs defines it); empty in a watch build, which keeps no code cache of its own. */
declare const CROW_BUNDLE_SHA256: string;
const BUNDLE_SHA256 = typeof CROW_BUNDLE_SHA256 === 'string' ? CROW_BUNDLE_SHA256 : '';

/** The private cache folder, made if needed; undefined when caching is off or no folder of crow's own can be had. */
function cacheFolder(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const directory = join(cacheHome(), 'compile-cache');
  // A cache that cannot be kept, or not kept safely, only costs speed.
  return privateFolderProblem(directory, { create: true, disposable: true }) === undefined ? directory : undefined;
}

/**
 * Runs the bundle as require() would (same module wrapper, require, module,
 * __filename, __dirname), compiled with the code cache kept in `folder` for
 * this Node, these Node options and this bundle. With no usable cache, one is written when the
 * process exits, holding the functions this run compiled. False when the
 * bundle could not be run this way (nothing of it has run then).
 */
function loadWithCodeCache(folder: string): boolean {
  let run: (...args: unknown[]) => unknown;
  let save: (() => void) | undefined;
  try {
    const { source, size, mtimeMs } = wrappedBundle();
    // V8 rejects a cache made under other flags: each set of Node options gets its own, rather than one rewritten by turns.
    const flags = JSON.stringify([process.execArgv, process.env.NODE_OPTIONS ?? '']);
    const key = createHash('sha256').update(`${process.version} ${process.arch} ${BUNDLE} ${BUNDLE_SHA256} ${size} ${mtimeMs} ${flags}`).digest('hex').slice(0, 32);
    const file = join(folder, `crow-cli-${key}.v8cache`);
    const kept = readPrivateFile(file);
    // Not crow's own (another user's, shared, a link): never loaded, and replaced by this run's.
    if ('problem' in kept) removeEntry(file);
    const cachedData = 'bytes' in kept ? kept.bytes : undefined;
    const script = new Script(source, { filename: BUNDLE, ...(cachedData ? { cachedData } : {}) });
    run = script.runInThisContext() as (...args: unknown[]) => unknown;
    if (!cachedData || script.cachedDataRejected) {
      save = () => {
        try {
          writePrivateFile(file, script.createCachedData());
          dropOldCaches(folder);
        } catch {
          // Only slower next time.
        }
      };
    }
  } catch {
    return false;
  }
  if (save) process.once('exit', save);
  const module = { exports: {}, filename: BUNDLE, id: BUNDLE, loaded: false };
  run.call(module.exports, module.exports, nodeModule.createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE));
  return true;
}

/**
 * The bundle's source inside the module wrapper, read into one buffer with
 * the wrapper around it: V8 then gets one flat string, where joining the
 * wrapper to the 4.5 MB source made it copy the whole source again (about
 * 3 ms of every start). The build keeps the bundle ASCII
 * (scripts/ascii-bundle.mjs), which reads as Latin-1 several times faster
 * than as UTF-8.
 */
function wrappedBundle(): { source: string; size: number; mtimeMs: number } {
  const [head, tail] = nodeModule.wrap('\0').split('\0') as [string, string];
  const fd = openSync(BUNDLE, 'r');
  try {
    const { size, mtimeMs } = fstatSync(fd);
    const bytes = Buffer.allocUnsafe(head.length + size + tail.length);
    bytes.write(head, 0, 'latin1');
    for (let read = 0; read < size; ) {
      const got = readSync(fd, bytes, head.length + read, size - read, read);
      if (got === 0) throw new Error(`${BUNDLE} ended early`);
      read += got;
    }
    bytes.write(tail, head.length + size, 'latin1');
    return { source: bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'), size, mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** Caches kept (other builds, other Node options); the least recently written beyond these are removed. */
const KEPT_CACHES = 4;

function dropOldCaches(folder: string): void {
  const caches = readdirSync(folder)
    .filter((name) => /^crow-cli-[0-9a-f]{32}\.v8cache$/.test(name))
    .map((name) => ({ name, written: lstatSync(join(folder, name)).mtimeMs }))
    .sort((a, b) => b.written - a.written);
  for (const { name } of caches.slice(KEPT_CACHES)) rmSync(join(folder, name), { force: true });
}

const folder = cacheFolder();
const enableCompileCache = (nodeModule as { enableCompileCache?: (directory?: string) => unknown }).enableCompileCache;
if (folder && enableCompileCache) {
  try {
    enableCompileCache(folder);
  } catch {
    // As above: only speed.
  }
}
// `crow trace` has a bundle of its own, a tenth of the CLI's (see crow-trace.ts): the viewer's first screen waits for its start.
if (process.argv[2] === 'trace') require('./crow-trace');
else if (!folder || BUNDLE_SHA256 === '' || !loadWithCodeCache(folder)) require('./crow-cli');
