import { type CommandEntry, type CommandJudgement, entryText, rememberable, touches } from './command-rules';
import type { PermissionCategory } from '../vocabulary/permission-types';

/** A standing "always" or "never" answer, as a person reads it in a list with Revoke. */
export interface StandingRule {
  /** Names it for `revoke`. */
  id: string;
  allowed: boolean;
  /** What it covers: "file changes", "commands starting with \"npm test\"". */
  covers: string;
}

/** What an "always" for a category covers, in words. */
const CATEGORY_WORDS: Record<PermissionCategory, string> = { read: 'reading files', write: 'file changes', execute: 'commands', network: 'network access' };

/**
 * "Always" and "never" answers of one session, shared by every agent's
 * gate: per category, and for commands as entries under the same rule as
 * the configured allow-list.
 */
export class RememberedAnswers {
  private readonly categories = new Map<PermissionCategory, boolean>();
  private readonly allowed: CommandEntry[] = [];
  private readonly rejected: CommandEntry[] = [];
  /** Command lines rejected for good that had no entry to remember (e.g. unparseable ones). */
  private readonly rejectedLines = new Set<string>();

  category(category: PermissionCategory, allowed: boolean): void {
    this.categories.set(category, allowed);
  }

  categoryAnswer(category: PermissionCategory): boolean | undefined {
    return this.categories.get(category);
  }

  /** Remembers the entries `commandAlwaysScope` promised for `line`. */
  commands(line: string, judgement: CommandJudgement, allowed: boolean): void {
    const entries = rememberable(judgement);
    (allowed ? this.allowed : this.rejected).push(...entries);
    if (!allowed && entries.length === 0) this.rejectedLines.add(line.trim());
  }

  allowedCommands(): readonly CommandEntry[] {
    return this.allowed;
  }

  /** Every answer standing now: categories first, then command entries as they were remembered. */
  standing(): StandingRule[] {
    const categories = [...this.categories].map(([category, allowed]) => ({ id: `category:${category}`, allowed, covers: CATEGORY_WORDS[category] }));
    const entries = (allowed: boolean, list: readonly CommandEntry[]): StandingRule[] =>
      list.map((entry, index) => ({ id: `${allowed ? 'allow' : 'reject'}:${index}:${entryText(entry)}`, allowed, covers: `commands starting with "${entryText(entry)}"` }));
    const lines = [...this.rejectedLines].map((line) => ({ id: `line:${line}`, allowed: false, covers: `the command "${line}"` }));
    return [...categories, ...entries(true, this.allowed), ...entries(false, this.rejected), ...lines];
  }

  /** Takes a standing answer back: the next such call is asked again. False when `id` names none (revoked already). */
  revoke(id: string): boolean {
    const rule = this.standing().find((candidate) => candidate.id === id);
    if (!rule) return false;
    const [kind, rest] = [id.slice(0, id.indexOf(':')), id.slice(id.indexOf(':') + 1)];
    if (kind === 'category') this.categories.delete(rest as PermissionCategory);
    else if (kind === 'line') this.rejectedLines.delete(rest);
    else (kind === 'allow' ? this.allowed : this.rejected).splice(Number(rest.slice(0, rest.indexOf(':'))), 1);
    return true;
  }

  /** How the rejection that applies to `line` was shown, when one does. */
  rejection(line: string, judgement: CommandJudgement): string | undefined {
    if (this.rejectedLines.has(line.trim())) return 'this command';
    const entry = touches(this.rejected, judgement);
    return entry ? `commands starting with "${entryText(entry)}"` : undefined;
  }
}
