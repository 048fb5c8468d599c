import { type CommandEntry, type CommandJudgement, entryText, rememberable, touches } from './command-rules';
import type { PermissionCategory } from '../vocabulary/permission-types';

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

  /** How the rejection that applies to `line` was shown, when one does. */
  rejection(line: string, judgement: CommandJudgement): string | undefined {
    if (this.rejectedLines.has(line.trim())) return 'this command';
    const entry = touches(this.rejected, judgement);
    return entry ? `commands starting with "${entryText(entry)}"` : undefined;
  }
}
