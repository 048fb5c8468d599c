/**
 * Paths as the file system resolves them. Every decision of the kind "is
 * this inside the workspace?" (trust, protection, confinement) is made on
 * real paths, both sides resolved through links: a path written through a
 * link to the workspace is inside it, and one that leads out through a
 * link is not, whatever its text says.
 */
import { realpathSync } from 'node:fs';
import * as path from 'node:path';

/** The real path of `target` (made absolute): its nearest existing ancestor resolved, the rest appended. */
export function realPathOf(target: string): string {
  const absolute = path.resolve(target);
  const rest: string[] = [];
  for (let existing = absolute; ; ) {
    try {
      return path.join(realpathSync.native(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return absolute;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/** Whether `target` is `folder` or lies inside it, as the two are written (give real paths for a decision). */
export function isWithin(folder: string, target: string): boolean {
  const rel = path.relative(folder, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Whether `target` lies inside `folder` (or is it) once both are resolved through links. */
export function isReallyWithin(folder: string, target: string): boolean {
  return isWithin(realPathOf(folder), realPathOf(target));
}
