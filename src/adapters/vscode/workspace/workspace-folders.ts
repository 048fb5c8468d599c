import { lstatSync } from 'node:fs';
import * as path from 'node:path';
import type { SandboxOptions } from '../../../tools/command-sandbox';
import { NodeWorkspace, type NodeWorkspaceOptions } from '../../../tools/node-workspace';
import { WorkspaceError } from '../../../tools/workspace';
import { isWithin } from '../../../vocabulary/real-paths';

/** A folder open in the VS Code window: its name (shown in the explorer) and absolute path on disk. */
export interface FolderRef {
  name: string;
  path: string;
}

/** A path found inside one of the folders, with the Node backend confined to that folder. */
export interface LocatedPath {
  /** Real absolute path (symlinks resolved). */
  absolute: string;
  folder: NodeWorkspace;
}

/**
 * Confinement for a multi-root window. The session's root comes first; the
 * window's other folders are reachable by absolute path, or by a relative
 * path starting with the folder's name ("api/src/x.ts") when the root has
 * no entry of that name and no other folder shares it. Each folder is
 * guarded by a NodeWorkspace, so `..`, absolute paths and symlinks are
 * judged exactly as in the Node backend, folder by folder.
 */
export class WorkspaceFolders {
  readonly primary: NodeWorkspace;
  private readonly byPath = new Map<string, NodeWorkspace>();

  /** `folders` is asked on each use, so folders added to or removed from the window count at once. */
  constructor(
    root: string,
    private readonly folders: () => readonly FolderRef[],
    private options: NodeWorkspaceOptions = {},
  ) {
    this.primary = new NodeWorkspace(root, options);
  }

  /** Every folder contains its next commands as `sandbox` says. */
  useSandbox(sandbox: SandboxOptions | undefined): void {
    this.options = { ...this.options, sandbox };
    for (const folder of [this.primary, ...this.byPath.values()]) folder.useSandbox(sandbox);
  }

  get root(): string {
    return this.primary.root;
  }

  /** The root, then the window's other folders on disk (real paths), as they are now. */
  paths(): string[] {
    return [this.root, ...this.others().map((other) => other.workspace.root)];
  }

  async locate(target: string): Promise<LocatedPath> {
    const lexical = this.absolutePath(target);
    const others = this.others();
    if (others.length === 0) return { absolute: await this.primary.resolve(target), folder: this.primary };
    for (const folder of [this.primary, ...others.map((other) => other.workspace)]) {
      const absolute = await folder.resolve(lexical).catch((err: unknown) => {
        if (err instanceof WorkspaceError) return undefined;
        throw err;
      });
      if (absolute !== undefined) return { absolute, folder };
    }
    const listed = [this.root, ...others.map((other) => `${other.ref.path} ("${other.ref.name}")`)].join(', ');
    throw new WorkspaceError(
      `Path "${target}" is outside the workspace. Paths must stay inside the workspace folders: ${listed}.`,
    );
  }

  async resolve(target: string): Promise<string> {
    return (await this.locate(target)).absolute;
  }

  /**
   * The display form: relative to the root; `name/rest` inside another folder
   * when that name leads back there; absolute when it would not.
   */
  relative(target: string): string {
    const absolute = path.resolve(this.root, target);
    if (isInside(this.root, absolute)) return this.primary.relative(absolute);
    const others = this.others();
    const owner = others.find((other) => isInside(other.workspace.root, absolute) || isInside(other.ref.path, absolute));
    if (!owner) return this.primary.relative(absolute);
    const base = isInside(owner.workspace.root, absolute) ? owner.workspace.root : owner.ref.path;
    const rest = path.relative(base, absolute).split(path.sep).join('/');
    if (this.folderNamed(owner.ref.name, others) !== owner) return absolute.split(path.sep).join('/');
    return rest === '' ? owner.ref.name : `${owner.ref.name}/${rest}`;
  }

  /** The absolute path a workspace path names, before symlinks are followed or confinement is checked. */
  absolutePath(target: string): string {
    if (path.isAbsolute(target)) return path.normalize(target);
    const [first = '', ...rest] = target.split(path.sep === '\\' ? /[\\/]/ : '/');
    const others = this.others();
    const named = this.folderNamed(first, others);
    if (named === 'ambiguous') {
      const paths = others.filter((other) => other.ref.name === first).map((other) => other.ref.path);
      throw new WorkspaceError(
        `Several workspace folders are named "${first}" (${paths.join(', ')}); give an absolute path to say which one.`,
      );
    }
    if (named) return path.resolve(named.ref.path, ...rest);
    return path.resolve(this.root, target);
  }

  /**
   * The other folder a leading path segment names: undefined when none does
   * or the root has an entry of that name (the root's own files win).
   */
  private folderNamed(segment: string, others: OtherFolder[]): OtherFolder | 'ambiguous' | undefined {
    if (segment === '' || segment === '.' || segment === '..') return undefined;
    const matches = others.filter((other) => other.ref.name === segment);
    if (matches.length === 0 || existsInRoot(this.root, segment)) return undefined;
    return matches.length > 1 ? 'ambiguous' : matches[0];
  }

  /** The window's folders other than the root, each with its guard; folders gone from disk are skipped. */
  private others(): OtherFolder[] {
    const result: OtherFolder[] = [];
    for (const ref of this.folders()) {
      const workspace = this.workspaceFor(ref.path);
      if (workspace && workspace.root !== this.root) result.push({ ref, workspace });
    }
    return result;
  }

  private workspaceFor(folder: string): NodeWorkspace | undefined {
    const cached = this.byPath.get(folder);
    if (cached) return cached;
    try {
      const workspace = new NodeWorkspace(folder, this.options);
      this.byPath.set(folder, workspace);
      return workspace;
    } catch {
      return undefined;
    }
  }
}

interface OtherFolder {
  ref: FolderRef;
  workspace: NodeWorkspace;
}

function existsInRoot(root: string, name: string): boolean {
  try {
    lstatSync(path.join(root, name));
    return true;
  } catch {
    return false;
  }
}

/** Whether `target` is `root` or inside it, as the platform's file system compares paths (path-semantics.ts). */
function isInside(root: string, target: string): boolean {
  return isWithin(root, target);
}
