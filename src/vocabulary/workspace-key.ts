import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { foldPath, HOST_PATHS, type PathSemantics, withoutDevicePrefix } from './path-semantics';

/**
 * The workspace's real path: the same folder reached through a symlink or a
 * relative path shares one snapshot repository and one undo log.
 */
export function realWorkspace(root: string): string {
  try {
    return realpathSync.native(resolve(root));
  } catch (err) {
    throw new Error(`workspace ${root} cannot be opened: ${(err as Error).message}`);
  }
}

/**
 * A file name for per-workspace data: readable basename plus a hash of the
 * real path as the file system compares it, so `C:\Work` and `c:\work` (or
 * a macOS name in NFC and NFD) are one workspace; on Linux the path as it is.
 */
export function workspaceKey(realRoot: string, semantics: PathSemantics = HOST_PATHS): string {
  const spelled = semantics.foldUnicode ? realRoot.normalize('NFC') : realRoot;
  const name = semantics.path.basename(spelled).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'root';
  const hash = createHash('sha256').update(foldPath(withoutDevicePrefix(realRoot, semantics), semantics)).digest('hex').slice(0, 16);
  return `${name}-${hash}`;
}
