/**
 * Copying in a plain browser page. `navigator.clipboard` exists only in a
 * secure context and may still refuse (no permission, page not focused), so
 * the older `execCommand('copy')` is tried next, and when both fail the text
 * is shown selected in a box for the user to copy by hand.
 */
import { el } from './element';
import { t } from './l10n';

export type CopyOutcome = 'copied' | 'shown';

export async function copyText(text: string): Promise<CopyOutcome> {
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return 'copied';
    }
  } catch {
    // Refused: fall through to the older route.
  }
  if (copyWithSelection(text)) return 'copied';
  showForManualCopy(text);
  return 'shown';
}

function copyWithSelection(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/** A dialog with the text selected; Escape or "Close" dismisses it. */
function showForManualCopy(text: string): void {
  document.getElementById('manual-copy')?.remove();
  const dialog = el('div', 'manual-copy');
  dialog.id = 'manual-copy';
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-label', t('Copy the trace by hand'));
  const hint = el('p', '');
  hint.textContent = t('This page may not use the clipboard. The text is selected below: press Ctrl+C (\u2318C on a Mac) to copy it.');
  const area = document.createElement('textarea');
  area.value = text;
  area.readOnly = true;
  const close = document.createElement('button');
  close.type = 'button';
  close.textContent = t('Close');
  close.addEventListener('click', () => dialog.remove());
  dialog.addEventListener('keydown', (event) => event.key === 'Escape' && dialog.remove());
  dialog.append(hint, area, close);
  document.body.append(dialog);
  area.focus();
  area.select();
}
