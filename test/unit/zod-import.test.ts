/**
 * How src/ imports zod, checked on every file. `import * as z from 'zod'`
 * lets the bundler turn each `z.object(...)` into a direct reference, so the
 * bundle leaves out the zod it does not use and builds none of zod's
 * namespace objects. One `import { z } from 'zod'` anywhere brings them all
 * back: about 600 KB more bundle and 5 ms more at every start of crow (see
 * bench/startup.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const SRC = resolve(__dirname, '../../src');

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('zod imports in src/', () => {
  it("take zod as a namespace (import * as z), never its z object, so the bundle builds none of zod's namespaces", () => {
    const offending = sources(SRC).filter((file) => {
      const imports = [...readFileSync(file, 'utf8').matchAll(/^import\s+(type\s+)?([^;]*?)\s+from\s+'zod(?:\/[^']*)?';/gm)];
      return imports.some(([, typeOnly, what]) => !typeOnly && what !== '* as z');
    });
    assert.deepEqual(
      offending.map((file) => relative(SRC, file)),
      [],
      "write import * as z from 'zod' (or import type { z } where only types are used)",
    );
  });
});
