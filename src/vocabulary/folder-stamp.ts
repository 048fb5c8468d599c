import { statSync } from 'node:fs';

/**
 * How long a folder must have stood unchanged before its stamp is trusted:
 * file system clocks tick coarsely (FAT's in 2 s), so a change later in the
 * same tick as the stamp would not move its times.
 */
export const SETTLE_MS = 2_000;

/**
 * What tells, without reading a folder, that its entries changed since:
 * its identity, its modification and change times and its links count. The
 * ctime moves with every entry made, removed or renamed in it, and unlike
 * the mtime no program can set it back.
 */
export interface FolderStamp {
  /** All of it as one string: equal stamps, an unchanged folder (once settled). */
  text: string;
  /** Whether it last changed at least the settling time ago; a time ahead of the clock never has. */
  settled: boolean;
  /** The folder's device and inode: which folder it is. */
  identity: string;
  /** Its links count: 2 plus its subfolders, on the file systems that count them (1 on those that do not). */
  links: bigint;
}

/** The stamp of `folder` now; throws when it cannot be looked at. */
export function folderStamp(folder: string, settleMs = SETTLE_MS): FolderStamp {
  const stats = statSync(folder, { bigint: true });
  const changed = stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs;
  const identity = `${stats.dev}:${stats.ino}`;
  return {
    text: `${identity}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.nlink}`,
    settled: BigInt(Date.now()) * 1_000_000n - changed >= BigInt(settleMs) * 1_000_000n,
    identity,
    links: stats.nlink,
  };
}
