/**
 * What a key does in the tree (the WAI-ARIA tree view pattern), as a pure
 * function of the rows shown: ArrowUp/ArrowDown move to the row above or
 * below, ArrowRight opens a closed row or moves to its first child,
 * ArrowLeft closes an open row or moves to its parent, Home/End go to the
 * first/last row, Enter or Space select the row (its details show).
 */
import type { Row } from './model';

export type TreeMove =
  | { type: 'select'; index: number }
  | { type: 'toggle'; spanId: string }
  | { type: 'none' };

/** `at` is the index of the selected row, -1 when no shown row is selected. */
export function treeMove(key: string, rows: readonly Row[], at: number, collapsed: ReadonlySet<string>): TreeMove | undefined {
  if (rows.length === 0) return undefined;
  const row = rows[at];
  const select = (index: number): TreeMove => ({ type: 'select', index: Math.max(0, Math.min(index, rows.length - 1)) });
  switch (key) {
    case 'ArrowDown':
      return select(at < 0 ? 0 : at + 1);
    case 'ArrowUp':
      return select(at < 0 ? 0 : at - 1);
    case 'Home':
      return select(0);
    case 'End':
      return select(rows.length - 1);
    case 'Enter':
    case ' ':
      return select(at < 0 ? 0 : at);
    case 'ArrowRight':
      if (!row) return select(0);
      if (!row.hasChildren) return { type: 'none' };
      if (collapsed.has(row.span.spanId)) return { type: 'toggle', spanId: row.span.spanId };
      return rows[at + 1]?.depth === row.depth + 1 ? select(at + 1) : { type: 'none' };
    case 'ArrowLeft': {
      if (!row) return select(0);
      if (row.hasChildren && !collapsed.has(row.span.spanId)) return { type: 'toggle', spanId: row.span.spanId };
      const parent = parentIndex(rows, at);
      return parent < 0 ? { type: 'none' } : select(parent);
    }
    default:
      return undefined;
  }
}

/** The nearest row above `at` one level up; -1 for a top-level row. */
function parentIndex(rows: readonly Row[], at: number): number {
  const depth = rows[at]!.depth;
  for (let i = at - 1; i >= 0; i--) if (rows[i]!.depth < depth) return i;
  return -1;
}
