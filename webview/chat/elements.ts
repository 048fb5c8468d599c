/**
 * Small DOM builders shared by the chat view's parts. Every piece of text
 * from the host goes in through `textContent`; the only HTML the view ever
 * parses is markdown-it's output (see markdown.ts).
 */
import type { Actor } from './protocol';
import { t } from './l10n';

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

/** A button; with `icon`, a codicon (VS Code's own icon font) before its label, hidden from screen readers, which read the label. */
export function button(label: string, className: string, onClick: () => void, icon?: string): HTMLButtonElement {
  const element = el('button', className, icon ? undefined : label);
  element.type = 'button';
  // With an icon, the label is its own span, which a narrow sidebar may hide (the button keeps its name: see chat.css).
  if (icon) {
    element.append(codicon(icon), el('span', 'label', label));
    // Its name even where a narrow sidebar hides the label (a caller may set a longer one).
    element.setAttribute('aria-label', label);
  }
  element.addEventListener('click', onClick);
  return element;
}

/** One of VS Code's codicons (https://microsoft.github.io/vscode-codicons), e.g. `send`, as a decorative span. */
export function codicon(name: string): HTMLElement {
  const icon = el('span', `codicon codicon-${name}`);
  icon.setAttribute('aria-hidden', 'true');
  return icon;
}

/** A collapsible section whose summary is plain text. */
export function details(className: string, summary: string, open = false): { root: HTMLDetailsElement; summary: HTMLElement } {
  const root = el('details', className);
  const head = el('summary', undefined, summary);
  root.open = open;
  root.append(head);
  return { root, summary: head };
}

/** Who is acting: "coder" for the primary, "reviewer · code-reviewer" for the others. */
export function actorBadge(actor: Actor): HTMLElement {
  const label = actor.role === 'primary' || actor.agent === actor.role ? actor.agent : `${actor.role} · ${actor.agent}`;
  const badge = el('span', `badge badge-${actor.role}`, label);
  badge.dataset['role'] = actor.role;
  badge.title = t`${actor.role} agent ${actor.agent}`;
  return badge;
}

export function sameActor(a: Actor, b: Actor): boolean {
  return a.agent === b.agent && a.role === b.role;
}

/** A button that asks the host to open a workspace file, e.g. `src/app.ts` or `src/app.ts:12`. */
export function fileLink(path: string, onOpen: (path: string, line?: number) => void, label = path): HTMLButtonElement {
  const { file, line } = splitLine(path);
  const link = button(label, 'file-link', () => onOpen(file, line));
  link.title = line !== undefined ? t`Open ${file} at line ${line}` : t`Open ${file}`;
  return link;
}

/** `src/app.ts:12-40` → the path and its first line; a path without a line stays whole. */
export function splitLine(text: string): { file: string; line?: number } {
  const match = /^(.*?):(\d+)(?:-\d+)?$/.exec(text);
  return match ? { file: match[1]!, line: Number(match[2]) } : { file: text };
}
