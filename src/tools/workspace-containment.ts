/**
 * The one rule every route into the workspace's files applies to a path
 * after resolving it through links (NodeWorkspace, Apply, the journal's
 * restore): it must lie inside the root, as the platform's file system
 * compares paths (another drive, another share, `..` past the root, a
 * `\\?\` spelling of somewhere else are all outside), and on Windows each
 * name below the root must be a plain file name: not a device (`NUL`,
 * `COM1.txt`), not a stream (`a.txt:hidden`), not dots and spaces only.
 */
import { HOST_PATHS, namesWithin, type PathSemantics, windowsNameProblem } from '../vocabulary/path-semantics';

/** `outside`: the path is elsewhere; else it is inside but names no plain file (`problem` says why). */
export type Containment = { inside: true; names: string[] } | { inside: false; outside: boolean; problem: string };

/** Whether the absolute `target` may be used as a path of the workspace at `root` (both real paths), with its names below the root. */
export function containment(root: string, target: string, semantics: PathSemantics = HOST_PATHS): Containment {
  const names = namesWithin(root, target, semantics);
  if (names === undefined) return { inside: false, outside: true, problem: `${target} is outside the workspace` };
  if (semantics.windowsNames) {
    for (const name of names) {
      const problem = windowsNameProblem(name);
      if (problem !== undefined) return { inside: false, outside: false, problem };
    }
  }
  return { inside: true, names };
}
