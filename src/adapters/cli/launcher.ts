/**
 * The `crow` binary (dist/crow.js): turns on V8's compile cache where Node
 * offers it (module.enableCompileCache, Node 22.1+; older Node goes on
 * without), then loads the CLI bundle (dist/crow-cli.js), which a later run
 * then compiles from the cache instead of from its source. The cache lives
 * in crow's own cache folder, readable by its owner only.
 */
import { mkdirSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { cacheHome, PRIVATE_DIR_MODE } from '../../config/paths';

const enableCompileCache = (nodeModule as { enableCompileCache?: (directory?: string) => unknown }).enableCompileCache;
if (enableCompileCache && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  try {
    const directory = join(cacheHome(), 'compile-cache');
    mkdirSync(directory, { recursive: true, mode: PRIVATE_DIR_MODE });
    enableCompileCache(directory);
  } catch {
    // A cache that cannot be kept only costs speed.
  }
}

require('./crow-cli');
