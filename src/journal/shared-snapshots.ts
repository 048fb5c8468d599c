/**
 * One watched snapshot manager per workspace (and data folder) in a
 * process: every session of the folder (the ACP client's threads, the
 * chat's sessions) shares its watcher and its last tree, so a new
 * session's first command asks the watcher what changed instead of
 * scanning the tree again. Held by the sessions that use it, and kept a
 * while after the last one closes (an editor closing one thread and
 * opening the next), then closed.
 */
import { GitSnapshotManager } from './git-snapshots';
import { KeeperLink, type KeeperLaunch } from './keeper-client';
import { realWorkspace } from '../vocabulary/workspace-key';

/** How long a manager no session holds keeps watching, in case the next session of the folder comes. */
const LINGER_MS = 5 * 60_000;

interface Held {
  manager: GitSnapshotManager;
  holders: number;
  linger?: NodeJS.Timeout;
}

const held = new Map<string, Held>();

export interface SharedSnapshots {
  manager: GitSnapshotManager;
  /** Lets go of the manager (once); the last holder's release starts its linger. */
  release(): void;
}

export interface HoldOptions {
  workspace: string;
  dataHome: string;
  env: NodeJS.ProcessEnv;
  /**
   * How to start the folder's keeper (keeper.ts), for a process that lives
   * for one run: it asks the keeper first, and starts one when its own
   * record was slow. Long-lived processes (crow acp, the extension) watch
   * the folder themselves and leave it out.
   */
  keeper?: KeeperLaunch;
}

/** The process's manager of `workspace` with crow's data in `dataHome`, made (watching) on first use. */
export function holdSnapshots(options: HoldOptions): SharedSnapshots {
  const workspace = realWorkspace(options.workspace);
  const key = `${workspace}\0${options.dataHome}`;
  let entry = held.get(key);
  if (!entry) {
    const { keeper: launch, ...manager } = options;
    const keeper = launch ? new KeeperLink({ workspace, dataHome: options.dataHome }, options.env, launch) : undefined;
    entry = { manager: new GitSnapshotManager({ ...manager, watch: true, ...(keeper ? { keeper } : {}) }), holders: 0 };
    held.set(key, entry);
  }
  const mine = entry;
  clearTimeout(mine.linger);
  mine.holders++;
  let released = false;
  return {
    manager: mine.manager,
    release: () => {
      if (released) return;
      released = true;
      if (--mine.holders > 0) return;
      mine.linger = setTimeout(() => {
        if (held.get(key) !== mine || mine.holders > 0) return;
        held.delete(key);
        void mine.manager.close();
      }, LINGER_MS);
      // The linger never keeps a process alive: crow run exits as soon as its work is done.
      mine.linger.unref();
    },
  };
}
