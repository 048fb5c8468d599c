/**
 * The bubblewrap (bwrap) command line of one sandboxed command. Pure: the
 * caller has found every path (real, absolute) and decided what may be
 * written; this only says it in bwrap's words, in an order where later
 * mounts win over earlier ones.
 */

/** A host path hidden from commands while the network is off. */
export interface HiddenPath {
  path: string;
  /** Folders are covered by an empty tmpfs, anything else (sockets) by /dev/null. */
  directory: boolean;
}

/** What one sandboxed command sees. Every path absolute and free of symlinks. */
export interface SandboxLayout {
  /** Folders commands may change: the workspace. Everything else is read-only. */
  writable: readonly string[];
  /**
   * A folder inside `writable` that stays read-only, so nothing can be
   * changed or created directly in it, except its entries `writable` lists
   * (the user's home inside the workspace: its dotfiles stay as they are).
   */
  shielded?: { folder: string; writable: readonly string[] };
  /** Existing files and folders inside `writable` that stay read-only (.git, .crow, .vscode, Crow's own folders). */
  readOnly: readonly string[];
  /**
   * Missing paths inside `writable` that must not be created: an empty
   * read-only folder stands there while the command runs (bwrap makes the
   * folder on the disk as its mount point; the caller removes it afterwards).
   */
  blocked: readonly string[];
  /** Whether commands reach any network, loopback included. */
  network: boolean;
  /**
   * Whether the command is kept from making user namespaces of its own
   * (--disable-userns, bubblewrap 0.8 and later; an older one cannot, and
   * the command could then gain capabilities inside a namespace it made).
   */
  forbidUserNamespaces: boolean;
  /** A folder bound (read-only) into the sandbox at its own path: the domain proxy's socket and bridge. */
  proxyFolder?: string;
  /** The size cap of the private /tmp, in bytes (a bwrap that cannot cap leaves it out). */
  tmpSizeBytes?: number;
  /** Host sockets (and folders of them) that would reach other programs: hidden while the network is off. */
  sockets: readonly HiddenPath[];
  /** Other proc file systems mounted on the host (a chroot's /proc): each shows the host's processes, so each is covered by an empty tmpfs. */
  otherProcMounts: readonly string[];
  /** Where the command starts. */
  cwd: string;
  /** Variables set inside the sandbox (names and values are visible in the process list: never secrets). */
  setenv?: Readonly<Record<string, string>>;
}

/**
 * bwrap's arguments, ending with `--`: the program to run follows. Always:
 * a new user namespace with every capability dropped (whoever starts Crow,
 * root included: nothing inside can remount, unmount, load a module or
 * open a raw socket), new PID and IPC namespaces (with a /proc of its own,
 * its /proc/sys read-only: uid 0 needs no capability to write a sysctl), a
 * new session (no controlling terminal to push keystrokes into), death
 * with the parent, the root read-only, a minimal /dev and a private /tmp
 * (of capped size, when a cap is given). The network namespace is new (only
 * a loopback of its own) unless the network is allowed.
 */
export function bwrapArguments(layout: SandboxLayout): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-user', '--unshare-pid', '--unshare-ipc', '--cap-drop', 'ALL'];
  if (layout.forbidUserNamespaces) args.push('--disable-userns');
  if (!layout.network) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys');
  if (layout.tmpSizeBytes !== undefined) args.push('--size', String(layout.tmpSizeBytes));
  args.push('--tmpfs', '/tmp');
  if (!layout.network) {
    for (const hidden of layout.sockets) {
      args.push(...(hidden.directory ? ['--tmpfs', hidden.path] : ['--ro-bind', '/dev/null', hidden.path]));
    }
  }
  if (layout.proxyFolder !== undefined) args.push('--ro-bind', layout.proxyFolder, layout.proxyFolder);
  for (const folder of layout.writable) args.push('--bind', folder, folder);
  if (layout.shielded) {
    args.push('--ro-bind', layout.shielded.folder, layout.shielded.folder);
    for (const entry of layout.shielded.writable) args.push('--bind', entry, entry);
  }
  for (const path of layout.readOnly) args.push('--ro-bind', path, path);
  for (const path of layout.otherProcMounts) args.push('--tmpfs', path);
  for (const path of layout.blocked) args.push('--tmpfs', path, '--remount-ro', path);
  for (const [name, value] of Object.entries(layout.setenv ?? {})) args.push('--setenv', name, value);
  args.push('--chdir', layout.cwd, '--');
  return args;
}
