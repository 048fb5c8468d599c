import { posix } from 'node:path';
import * as z from 'zod';
import { defineTool } from '../define-tool';
import { IGNORE_FILE_NAMES, IgnoreRules } from '../ignore-rules';
import type { DirectoryEntry, EntryType, Workspace } from '../workspace';

const MAX_DEPTH = 5;
const MAX_ENTRIES = 500;
/** Names never listed: version-control internals and OS litter. */
const NOISE = new Set(['.git', '.hg', '.svn', '.DS_Store']);
/** What a file or an unentered folder holds: one array for all of them (a wide tree has hundreds of thousands). */
const NO_CHILDREN: readonly TreeNode[] = Object.freeze([]);
/** Dependency and cache folders: treated as ignored even when no ignore file names them. */
const ALWAYS_IGNORED = new Set(['node_modules', '__pycache__', '.venv', '.mypy_cache', '.pytest_cache']);

interface TreeNode {
  name: string;
  type: EntryType;
  children: readonly TreeNode[];
  /** The folder could not be read (permissions, vanished meanwhile). */
  unreadable: boolean;
  /** An ignored folder: listed, never entered. */
  ignored: boolean;
  /** Chosen for the listing; the cap hides the rest. */
  shown: boolean;
}

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  description:
    'List a folder of the workspace as an indented tree (folders end with "/"). ' +
    'Honours .gitignore and .ignore files: ignored files are left out, and ignored folders (node_modules, ' +
    'dist and the like, at any level) appear once as "name/ (ignored)" without their contents; list one by ' +
    `its path to see inside. Skips .git. Shows at most ${MAX_ENTRIES} entries.`,
  kind: 'read',
  permission: 'read',
  readOnly: true,
  parameters: () => z.object({
    path: z.string().default('.').describe('Folder, relative to the workspace root (default: the root).'),
    depth: z
      .number()
      .int()
      .min(1)
      .max(MAX_DEPTH)
      .default(2)
      .describe(`How many levels to descend; 1 lists only the folder itself (default 2, at most ${MAX_DEPTH}).`),
  }),
  summarize: ({ path }) => path,
  locations: ({ path }) => [{ path }],
  async execute({ path, depth }, { workspace, signal }) {
    const shown = workspace.relative(path);
    const info = await workspace.stat(path);
    if (!info) throw new Error(`Folder not found: ${shown}.`);
    if (info.type !== 'directory') throw new Error(`${shown} is a file, not a folder. Use read_file to read it.`);

    const rules = await ancestorRules(workspace, shown);
    const tree = await readTree(workspace, shown, depth, rules, signal);
    const { total, listed } = chooseShown(tree, MAX_ENTRIES);
    const rows = [`${shown}/`];
    if (tree.length === 0) rows.push('  (empty)');
    render(tree, 1, rows);
    if (listed < total) {
      rows.push(
        '',
        `[${total - listed} of ${total} entries not shown: the listing stops at ${MAX_ENTRIES}; ` +
          'list a subfolder or use a smaller depth]',
      );
    }
    return { output: rows.join('\n'), extra: { entries: total, shown: listed } };
  },
});

async function readTree(
  workspace: Workspace,
  folder: string,
  levels: number,
  inherited: IgnoreRules,
  signal: AbortSignal,
): Promise<TreeNode[]> {
  signal.throwIfAborted();
  const entries = await workspace.readDirectory(folder);
  const rules = await withIgnoreFiles(workspace, folder, inherited, entries);
  const nodes: TreeNode[] = [];
  const entered: Promise<void>[] = [];
  for (const { name, type } of entries) {
    if (NOISE.has(name)) continue;
    // `folder` is normalized and `name` holds no "/": what posix.join would make, without its work per entry.
    const entry = folder === '.' ? name : `${folder}/${name}`;
    const isFolder = type === 'directory';
    const ignored = (isFolder && ALWAYS_IGNORED.has(name)) || rules.ignores(entry, isFolder);
    if (ignored && !isFolder) continue;
    const node: TreeNode = { name, type, children: NO_CHILDREN, unreadable: false, ignored, shown: false };
    // The subfolders are read side by side: one after the other, a wide folder's listing waited on each in turn.
    if (isFolder && !ignored && levels > 1) entered.push(enter(workspace, node, entry, levels - 1, rules, signal));
    nodes.push(node);
  }
  await Promise.all(entered);
  return nodes;
}

/** Fills in `node`'s children, or marks it unreadable. */
async function enter(workspace: Workspace, node: TreeNode, folder: string, levels: number, rules: IgnoreRules, signal: AbortSignal): Promise<void> {
  try {
    node.children = await readTree(workspace, folder, levels, rules, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    node.unreadable = true;
  }
}

/** The rules of the ignore files in the folders above `folder`, from the workspace root down. */
async function ancestorRules(workspace: Workspace, folder: string): Promise<IgnoreRules> {
  const parts = folder === '.' ? [] : folder.split('/');
  let rules = IgnoreRules.none;
  for (let index = 0; index < parts.length; index++) {
    rules = await withIgnoreFiles(workspace, index === 0 ? '.' : parts.slice(0, index).join('/'), rules);
  }
  return rules;
}

/** `rules` plus the ignore files of `folder`; only those among `entries` when its entries are known. */
async function withIgnoreFiles(
  workspace: Workspace,
  folder: string,
  rules: IgnoreRules,
  entries?: DirectoryEntry[],
): Promise<IgnoreRules> {
  for (const name of IGNORE_FILE_NAMES) {
    if (entries && !entries.some((entry) => entry.name === name && entry.type === 'file')) continue;
    const text = await workspace.readFile(posix.join(folder, name)).then(
      (bytes) => Buffer.from(bytes).toString('utf8'),
      () => undefined,
    );
    if (text !== undefined) rules = rules.extend(folder, text);
  }
  return rules;
}

/** Marks up to `max` entries as shown, breadth first, so upper levels are always complete first. */
function chooseShown(tree: readonly TreeNode[], max: number): { total: number; listed: number } {
  const queue = [...tree];
  let listed = 0;
  for (let index = 0; index < queue.length; index++) {
    const node = queue[index]!;
    if (listed < max) {
      node.shown = true;
      listed++;
    }
    queue.push(...node.children);
  }
  return { total: queue.length, listed };
}

function render(nodes: readonly TreeNode[], level: number, rows: string[]): void {
  const indent = '  '.repeat(level);
  for (const node of nodes) {
    if (!node.shown) continue;
    rows.push(indent + label(node));
    render(node.children, level + 1, rows);
  }
  const hidden = nodes.filter((node) => !node.shown).length;
  if (hidden > 0) rows.push(`${indent}… ${hidden} more`);
}

function label(node: TreeNode): string {
  switch (node.type) {
    case 'directory':
      if (node.ignored) return `${node.name}/ (ignored)`;
      return node.unreadable ? `${node.name}/ (unreadable)` : `${node.name}/`;
    case 'symlink':
      return `${node.name} (symlink)`;
    default:
      return node.name;
  }
}
