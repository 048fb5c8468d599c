/**
 * The chat view's form controls, drawn by @vscode-elements/elements (Lit web
 * components in VS Code's own look: its dropdown, button and input) rather
 * than bare HTML controls. Only the components used here are imported, so
 * the bundle carries nothing else. They style themselves with constructable
 * stylesheets (which the webview's CSP allows) and set no style attributes;
 * a codicon inside one (a button's icon) comes from the page's
 * `link#vscode-codicon-stylesheet`, which the host's page provides from the
 * webview's own origin (webview-page.ts).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { VscodeButton } from '@vscode-elements/elements/dist/vscode-button/vscode-button.js';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import { el } from './elements';

export type { VscodeButton, VscodeSingleSelect, VscodeTextfield };

/**
 * A VS Code button: its label in a `.label` span (a narrow sidebar may hide
 * it; the button keeps its name through aria-label), with a codicon before
 * it. `secondary` is VS Code's grey button. A click on a disabled one does
 * nothing (the component lets the host element see the click).
 */
export function vsButton(label: string, className: string, onClick: () => void, options: { icon?: string; secondary?: boolean } = {}): VscodeButton {
  const element = document.createElement('vscode-button');
  element.className = className;
  element.secondary = options.secondary ?? false;
  setLabel(element, label, options.icon);
  element.addEventListener('click', () => {
    if (!element.disabled) onClick();
  });
  return element;
}

/** Changes a VS Code button's label and icon. */
export function setLabel(element: VscodeButton, label: string, icon?: string): void {
  element.icon = icon ?? '';
  element.replaceChildren(el('span', 'label', label));
  element.setAttribute('aria-label', label);
}

/** The width at and below which chat.css hides these buttons' labels (its `@media (max-width: 330px)`). */
const NARROW = '(max-width: 330px)';

/**
 * Makes `buttons` icon-only buttons (VS Code's compact padding) while the
 * view is narrow, where chat.css hides their labels; their names stay in
 * aria-label and the tooltip.
 */
export function iconsWhenNarrow(...buttons: VscodeButton[]): void {
  const narrow = window.matchMedia(NARROW);
  const apply = (): void => {
    for (const button of buttons) button.iconOnly = narrow.matches;
  };
  narrow.addEventListener('change', apply);
  apply();
}

/** Enables or disables a VS Code button, saying so to screen readers (and to Playwright's isDisabled) as a native one would. */
export function setDisabled(element: VscodeButton, disabled: boolean): void {
  element.disabled = disabled;
  element.setAttribute('aria-disabled', String(disabled));
}

/**
 * A VS Code dropdown; `onChange` gets the picked value. Its list opens
 * upwards: every dropdown of the view lives in the footer, at the view's
 * bottom edge, where a list opened downwards would be cut off.
 */
export function vsSelect(className: string, onChange?: (value: string) => void): VscodeSingleSelect {
  const element = document.createElement('vscode-single-select');
  element.className = className;
  element.position = 'above';
  // In the Tab order from the start: the component restores the tabIndex it had when disabled, and a fresh host has -1.
  element.tabIndex = 0;
  if (onChange) element.addEventListener('change', () => onChange(element.value));
  return element;
}

/** Replaces a dropdown's options and shows `current` (the first option when it is not one of them). */
export function setOptions(select: VscodeSingleSelect, options: { value: string; label?: string; description?: string }[], current?: string): void {
  select.replaceChildren(
    ...options.map(({ value, label, description }) => {
      const option = document.createElement('vscode-option');
      option.value = value;
      option.textContent = label ?? value;
      if (description) option.description = description;
      option.selected = value === current;
      return option;
    }),
  );
  if (current !== undefined) select.value = current;
}

/** A VS Code text box. */
export function vsTextfield(id: string, type: 'text' | 'password' | 'url', placeholder: string): VscodeTextfield {
  const element = document.createElement('vscode-textfield');
  element.id = id;
  element.type = type;
  element.placeholder = placeholder;
  return element;
}
