/**
 * Frontmatter written in seed 002's (and Claude Code's) spelling, read as
 * ours with a hint saying what it became, so such agent files work as they
 * are: `model: sonnet` (an alias; see model-aliases.ts) and permission
 * lists, `permissions: [FilesystemRead, SemanticSearch]`, meaning "only
 * these": the categories listed keep the rule the settings give them, the
 * others are denied (a list never widens anything). `requires_approval`
 * takes the same names.
 */
import type { DefinitionError } from './config-problems';
import { didYouMean } from '../vocabulary/did-you-mean';
import { PERMISSION_CATEGORIES, type PermissionCategory } from '../vocabulary/permission-types';
import { MODEL_ALIASES, isModelAlias } from './model-aliases';

/** Seed 002's permission names, and what each is in Crow; null: Crow has nothing it could govern. */
const SEED_PERMISSIONS: Record<string, PermissionCategory | null> = {
  FilesystemRead: 'read',
  SemanticSearch: 'read',
  FilesystemWrite: 'write',
  NetworkAccess: 'network',
  DatabaseRead: null,
  DatabaseWrite: null,
};

/** A note on a definition that was read, not a problem: what a seed-style field was taken to mean. */
export interface DefinitionHint {
  file: string;
  field: string;
  message: string;
}

export interface TranslatedForms {
  data: Record<string, unknown>;
  hints: DefinitionHint[];
  problems: DefinitionError[];
}

/** The frontmatter with seed-style fields in Crow's form; other fields are left for the schema to check. */
export function translateAgentForms(file: string, data: Record<string, unknown>): TranslatedForms {
  const out = { ...data };
  const hints: DefinitionHint[] = [];
  const problems: DefinitionError[] = [];
  if (typeof data.model === 'string' && isModelAlias(data.model)) {
    const alias = data.model.toLowerCase();
    out.model = alias;
    const meaning =
      alias === 'inherit'
        ? "the provider's default model (as the agent that runs it would use)"
        : `${MODEL_ALIASES[alias as keyof typeof MODEL_ALIASES]} on an Anthropic provider, the provider's default model on any other`;
    hints.push({ file, field: 'model', message: `"${data.model}" is a model alias: ${meaning}.` });
  }
  if (Array.isArray(data.permissions)) {
    const listed = categoriesOf(file, 'permissions', data.permissions, hints, problems);
    const denied = PERMISSION_CATEGORIES.filter((category) => !listed.includes(category));
    out.permissions = Object.fromEntries(denied.map((category) => [category, 'deny']));
    const kept = listed.length > 0 ? `${listed.join(', ')} as your settings say` : 'nothing allowed';
    const deny = denied.length > 0 ? `; ${denied.join(', ')} denied` : '';
    hints.push({ file, field: 'permissions', message: `a list means "only these": ${kept}${deny}.` });
  }
  if (Array.isArray(data.requires_approval)) {
    out.requires_approval = categoriesOf(file, 'requires_approval', data.requires_approval, hints, problems);
  }
  // Seed 002's agents are all subagents, and its files say no role; such a file is both (see takesTasks).
  if (hints.length > 0 && data.role === undefined) {
    hints.push({ file, field: 'role', message: 'not set, so this is a primary agent (one you run yourself) that other agents can also hand tasks to, as seed 002\'s agents are; add "role: subagent" to make it a subagent only.' });
  }
  return { data: out, hints, problems };
}

/** The Crow categories a list of seed or Crow permission names stands for, without repeats. */
function categoriesOf(file: string, field: string, names: unknown[], hints: DefinitionHint[], problems: DefinitionError[]): PermissionCategory[] {
  const categories = new Set<PermissionCategory>();
  names.forEach((name, i) => {
    const word = String(name);
    const own = PERMISSION_CATEGORIES.find((category) => category === word.toLowerCase());
    if (own) {
      categories.add(own);
      return;
    }
    const seed = Object.entries(SEED_PERMISSIONS).find(([seedName]) => seedName.toLowerCase() === word.toLowerCase());
    if (!seed) {
      const known = [...PERMISSION_CATEGORIES, ...Object.keys(SEED_PERMISSIONS)];
      const guess = didYouMean(word, known);
      problems.push({ file, field: `${field}[${i}]`, message: `unknown permission "${word}"${guess ? ` (did you mean "${guess}"?)` : ''}. Use ${known.join(', ')}.` });
      return;
    }
    const [seedName, category] = seed;
    if (category === null) {
      hints.push({ file, field: `${field}[${i}]`, message: `${seedName} is ignored: Crow has no database access to govern.` });
      return;
    }
    categories.add(category);
  });
  return [...categories];
}
