/**
 * An attempt's patch (`git diff --binary` against the attempts' base) as
 * the chat's diffs: one per file, named by its path, binary content left
 * out, and capped so a card stays light (the whole change is applied, not
 * what the card shows).
 */
import type { CardDiff } from '../../../../webview/chat/protocol';
import { t } from '../l10n';

/** Characters of diff a card shows per attempt. */
const SHOWN_CHARS = 40_000;

export function patchDiffs(patch: string): CardDiff[] {
  const diffs: CardDiff[] = [];
  let budget = SHOWN_CHARS;
  for (const part of patch.split(/^(?=diff --git )/m)) {
    if (!part.startsWith('diff --git ')) continue;
    const path = pathOf(part);
    const binary = /^GIT binary patch$/m.test(part) || /^Binary files /m.test(part);
    const body = binary ? '' : part;
    if (budget <= 0) {
      diffs.push({ path, unified: '' });
      continue;
    }
    const cut = body.length > budget;
    const unified = cut ? `${body.slice(0, budget).replace(/\n[^\n]*$/, '')}\n ${t('[the rest is not shown here: Apply brings in the whole change]')}\n` : body;
    // Past the cap nothing more is shown: the files after it are named, without their lines.
    budget = cut ? 0 : budget - unified.length;
    diffs.push({ path, unified });
  }
  return diffs;
}

/** The file a part of the patch changes: its "+++ b/…" line, else "--- a/…" (a deletion), else the diff line's. */
function pathOf(part: string): string {
  const added = /^\+\+\+ b\/(.*)$/m.exec(part)?.[1];
  if (added !== undefined) return unquote(added);
  const removed = /^--- a\/(.*)$/m.exec(part)?.[1];
  if (removed !== undefined) return unquote(removed);
  return unquote(/^diff --git a\/(.*?) b\//.exec(part)?.[1] ?? '');
}

/** git quotes a path with unusual characters ("a\tb"): shown as git wrote it, without the quotes. */
function unquote(path: string): string {
  return path.replace(/^"(.*)"$/, '$1').trimEnd();
}
