import type { PermissionCategory } from '../vocabulary/permission-types';

/**
 * Caps on approvals nobody was asked for: after `limits[category]` automatic
 * approvals (by the policy or a remembered "always") since the last `reset`
 * or the last yes from a person, the next call of that category is asked
 * again. Front doors reset the counts at each prompt.
 */
export class AutoApproveCaps {
  private readonly counts = new Map<PermissionCategory, number>();

  /** Most automatic approvals per category; a front door may change them between prompts. */
  constructor(public limits: Partial<Record<PermissionCategory, number>>) {}

  exhausted(category: PermissionCategory): boolean {
    const limit = this.limits[category];
    return limit !== undefined && limit > 0 && (this.counts.get(category) ?? 0) >= limit;
  }

  count(category: PermissionCategory): void {
    this.counts.set(category, (this.counts.get(category) ?? 0) + 1);
  }

  restart(category: PermissionCategory): void {
    this.counts.delete(category);
  }

  reset(): void {
    this.counts.clear();
  }
}
