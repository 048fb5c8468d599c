/**
 * Spec Kit's feature folders: one per feature, `specs/NNN-short-name/`
 * (or the seed's `.specify/specs/NNN-short-name/`), numbered in creation
 * order from 001, or prefixed `YYYYMMDD-HHMMSS` when `.specify/init-options.json`
 * asks for timestamps. The branch of a feature carries the same name.
 */
import type { Workspace } from '../tools/workspace';
import { entriesOf, readText } from './workspace-text';

/** Where feature folders live, the standard place first. */
export const FEATURE_ROOTS = ['specs', '.specify/specs'] as const;
export const SPECIFY_DIR = '.specify';
export const CONSTITUTION_PATH = '.specify/memory/constitution.md';
/** Spec Kit's record of the feature last created or chosen. */
export const FEATURE_JSON = '.specify/feature.json';
const INIT_OPTIONS = '.specify/init-options.json';

const SEQUENTIAL = /^(\d{3,})-(.+)$/;
const TIMESTAMP = /^(\d{8}-\d{6})-(.+)$/;

export interface Feature {
  /** Workspace-relative folder, e.g. "specs/003-photo-albums" (or any folder Spec Kit's variables name, "specs/auth-flow"). */
  dir: string;
  /** The folder's name: "003-photo-albums". */
  name: string;
  /** "003", or "20260319-143022" for timestamp numbering; absent for a folder named otherwise. */
  prefix?: string;
  /** The sequential number; absent for timestamp prefixes. */
  number?: number;
}

/** The paths of a feature's artifacts, workspace-relative. */
export function featureFiles(feature: Feature) {
  const at = (name: string): string => `${feature.dir}/${name}`;
  return {
    spec: at('spec.md'),
    plan: at('plan.md'),
    tasks: at('tasks.md'),
    research: at('research.md'),
    dataModel: at('data-model.md'),
    quickstart: at('quickstart.md'),
    contracts: at('contracts'),
    checklists: at('checklists'),
  };
}

/** Any folder as a feature (named by SPECIFY_FEATURE_DIRECTORY or feature.json, which need no number). */
export function featureAt(dir: string): Feature {
  const clean = dir.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  const name = clean.split('/').at(-1)!;
  const parent = clean.slice(0, clean.length - name.length).replace(/\/$/, '');
  return featureNamed(parent, name) ?? { dir: clean, name };
}

/** A folder name as a feature, if it is one. */
export function featureNamed(root: string, name: string): Feature | undefined {
  const dir = root === '' ? name : `${root}/${name}`;
  if (TIMESTAMP.test(name)) return { dir, name, prefix: TIMESTAMP.exec(name)![1]! };
  const sequential = SEQUENTIAL.exec(name);
  if (!sequential) return undefined;
  return { dir, name, prefix: sequential[1]!, number: Number.parseInt(sequential[1]!, 10) };
}

/** Every feature folder of the project, oldest first (by number; timestamped ones after, by time). */
export async function listFeatures(workspace: Workspace): Promise<Feature[]> {
  const features: Feature[] = [];
  for (const root of FEATURE_ROOTS) {
    for (const entry of await entriesOf(workspace, root)) {
      const feature = entry.type === 'directory' ? featureNamed(root, entry.name) : undefined;
      if (feature) features.push(feature);
    }
  }
  return features.sort(byAge);
}

function byAge(a: Feature, b: Feature): number {
  if (a.number !== undefined && b.number !== undefined) return a.number - b.number || a.dir.localeCompare(b.dir);
  if (a.number !== undefined) return -1;
  if (b.number !== undefined) return 1;
  return (a.prefix ?? '').localeCompare(b.prefix ?? '') || a.dir.localeCompare(b.dir);
}

/** Where a new feature goes: the seed's `.specify/specs/` only when that is what the project already uses. */
export function rootForNew(features: readonly Feature[]): string {
  const usesSeedVariant = features.length > 0 && features.every((f) => f.dir.startsWith('.specify/specs/'));
  return usesSeedVariant ? '.specify/specs' : 'specs';
}

export type Numbering = 'sequential' | 'timestamp';

/** `.specify/init-options.json` as `specify init` wrote it ({} when absent or unreadable). */
export async function initOptions(workspace: Workspace): Promise<Record<string, unknown>> {
  const text = await readText(workspace, INIT_OPTIONS);
  if (text === undefined) return {};
  try {
    const options = JSON.parse(text) as unknown;
    return typeof options === 'object' && options !== null && !Array.isArray(options) ? (options as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The project's numbering: timestamps when init-options.json says so, else 001, 002, … */
export async function numberingOf(workspace: Workspace): Promise<Numbering> {
  const options = await initOptions(workspace);
  return (options.feature_numbering ?? options.branch_numbering) === 'timestamp' ? 'timestamp' : 'sequential';
}

/**
 * The prefix of the next feature: one above the highest sequential number
 * in either feature root (at least 3 digits), or the current time. A
 * requested number is used when no feature has it yet.
 */
export function nextPrefix(features: readonly Feature[], numbering: Numbering, options: { now?: Date; requested?: number } = {}): string {
  if (numbering === 'timestamp') return timestamp(options.now ?? new Date());
  const taken = new Set(features.flatMap((f) => (f.number !== undefined ? [f.number] : [])));
  if (options.requested !== undefined && !taken.has(options.requested)) return pad(options.requested);
  return pad(Math.max(0, ...taken) + 1);
}

function pad(n: number): string {
  return String(n).padStart(3, '0');
}

function timestamp(now: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}-${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
}

/** Words that carry no meaning in a feature's short name. */
const STOP_WORDS = new Set(
  ('i a an the to for of in on at by with from is are was were be been being have has had do does did will would ' +
    'should could can may might must shall this that these those my your our their want need add get set let lets ' +
    'me we us it its into as and or so some any').split(' '),
);

/**
 * A 2-4 word kebab-case name from a feature description ("Let users
 * organise photos into albums by date" → "users-organise-photos"): the
 * first meaningful words, keeping short acronyms written in capitals.
 */
export function shortName(description: string, maxWords = 3): string {
  const words = description.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const meaningful = words.filter((word) => {
    const lower = word.toLowerCase();
    if (STOP_WORDS.has(lower)) return false;
    return lower.length >= 3 || (word.length >= 2 && word === word.toUpperCase() && /[A-Z]/.test(word));
  });
  const chosen = (meaningful.length > 0 ? meaningful : words).slice(0, meaningful.length === maxWords + 1 ? maxWords + 1 : maxWords);
  return cleanName(chosen.join('-')) || 'feature';
}

/** A user-given short name made safe for a folder and a branch. */
export function cleanName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
}

/**
 * The features a reference names: a folder path ("specs/003-x"), a folder
 * name ("003-x"), a branch name ("feat/003-x" or any "003-…", matched by
 * prefix as Spec Kit does) or a bare number ("3", "003").
 */
export function featuresMatching(features: readonly Feature[], reference: string): Feature[] {
  const ref = reference.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  const exact = features.filter((f) => f.dir === ref || f.name === ref);
  if (exact.length > 0) return exact;
  if (/^\d+$/.test(ref)) return features.filter((f) => f.number === Number.parseInt(ref, 10));
  const last = ref.split('/').at(-1)!;
  const prefix = TIMESTAMP.exec(last)?.[1] ?? SEQUENTIAL.exec(last)?.[1];
  if (prefix === undefined) return [];
  return features.filter((f) => (f.number !== undefined && /^\d+$/.test(prefix) ? f.number === Number.parseInt(prefix, 10) : f.prefix === prefix));
}
