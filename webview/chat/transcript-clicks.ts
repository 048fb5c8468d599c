/**
 * Clicks inside the transcript that are not a button's own: a code block's
 * Copy, Insert and Apply (the block's code as text, exactly; Apply with the
 * file its fence names), and links in the agents' text (a workspace file
 * opens in the editor; an outside link is left to VS Code, which asks
 * before it opens one).
 */
import { fileOpener, type Post } from './host';
import { linkAction } from './markdown';

export function answerClicks(post: Post): (event: MouseEvent) => void {
  return (event) => {
    const codeAction = (event.target as Element | null)?.closest?.('button.code-action');
    if (codeAction) return codeActionClicked(post, codeAction);
    const anchor = (event.target as Element | null)?.closest?.('a[href]');
    if (!anchor) return;
    const action = linkAction(anchor.getAttribute('href') ?? '');
    if (action.kind === 'external') return;
    event.preventDefault();
    if (action.kind === 'file') fileOpener(post)(action.path, action.line);
  };
}

function codeActionClicked(post: Post, action: Element): void {
  const code = action.closest('.code-block')?.querySelector('pre')?.textContent ?? '';
  if (action.classList.contains('code-copy')) post({ type: 'copy_code', text: code });
  else if (action.classList.contains('code-insert')) post({ type: 'insert_code', text: code });
  else if (action instanceof HTMLElement && action.classList.contains('code-apply')) post({ type: 'apply_code', text: code, ...(action.dataset['path'] ? { path: action.dataset['path'] } : {}) });
}
