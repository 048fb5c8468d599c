/**
 * Paths as the file system resolves them. Every decision of the kind "is
 * this inside the workspace?" (trust, protection, confinement) is made on
 * real paths, both sides resolved through links: a path written through a
 * link to the workspace is inside it, and one that leads out through a
 * link is not, whatever its text says. Paths are compared as the
 * platform's file system compares names (path-semantics.ts).
 */
import { realpathSync } from 'node:fs';
import { HOST_PATHS, isWithinAs, type PathSemantics, resolveAs } from './path-semantics';

/**
 * The real path of `target` (made absolute): its nearest existing ancestor
 * resolved, the rest appended. With another platform's semantics than the
 * host's, nothing can be looked up: the path is only made absolute.
 */
export function realPathOf(target: string, semantics: PathSemantics = HOST_PATHS): string {
  const path = semantics.path;
  const absolute = resolveAs(semantics, undefined, target);
  if (semantics !== HOST_PATHS) return absolute;
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
export function isWithin(folder: string, target: string, semantics: PathSemantics = HOST_PATHS): boolean {
  return isWithinAs(semantics, folder, target);
}

/** Whether `target` lies inside `folder` (or is it) once both are resolved through links. */
export function isReallyWithin(folder: string, target: string, semantics: PathSemantics = HOST_PATHS): boolean {
  return isWithin(realPathOf(folder, semantics), realPathOf(target, semantics), semantics);
}
