/**
 * Driving the chat view's @vscode-elements controls from Playwright, as a
 * person does. They are web components: a dropdown (vscode-single-select)
 * draws its face and its list in its shadow root, which Playwright's CSS
 * selectors pierce, and is no <select> (selectOption and inputValue do not
 * apply); a text box (vscode-textfield) keeps its <input> in there too.
 * Used by the headless-Chromium tests and the real-workbench UI checks.
 */
import type { Locator } from 'playwright-core';

/**
 * Opens the dropdown with a click and clicks the option whose text is
 * `value`, as a person picks one; a list that closed before the pick (seen
 * once in the workbench right after New session, cause not found) is opened
 * again, as a person would.
 */
export async function pickOption(select: Locator, value: string, timeout = 30_000): Promise<void> {
  const exact = new RegExp(`^\\s*${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
  const option = select.locator('li.option', { hasText: exact });
  const deadline = Date.now() + timeout;
  const left = (most: number): number => Math.max(1, Math.min(most, deadline - Date.now()));
  for (;;) {
    if (!(await option.isVisible())) await select.click({ timeout: left(timeout) });
    try {
      await option.click({ timeout: left(3_000) });
      return;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
    }
  }
}

/** The value a dropdown holds. */
export async function selectedValue(select: Locator): Promise<string> {
  return select.evaluate((element) => (element as HTMLElement & { value: string }).value);
}

/** The text its face shows (the picked option's label). */
export async function shownText(select: Locator): Promise<string> {
  return select.locator('.select-face .text').innerText();
}

/** The <input> inside a VS Code text box, for fill, press and inputValue. */
export function textInput(field: Locator): Locator {
  return field.locator('input');
}

/** What a shown dropdown reads at a glance: its name, its value, the text its face shows and whether that text is cut. */
export interface PickerReading {
  name: string;
  value: string;
  /** The chosen option's own text (its value, unless it has a label: "1 attempt"). */
  label: string;
  shown: string;
  /** The face's text runs past its box (an ellipsis hides part of it). */
  cut: boolean;
  /** How far right it reaches, and the view's width, in the view's own pixels. */
  right: number;
  viewWidth: number;
}

/** Reads every shown dropdown `pickers` matches, measuring its face's text (scrollWidth against clientWidth). */
export async function readPickers(pickers: Locator): Promise<PickerReading[]> {
  const all = await pickers.evaluateAll((elements) =>
    elements.map((element) => {
      const text = element.shadowRoot?.querySelector<HTMLElement>('.select-face .text') ?? null;
      return {
        shownAtAll: element.getClientRects().length > 0,
        name: element.getAttribute('title') ?? element.id,
        value: (element as HTMLElement & { value: string }).value,
        label: (Array.from(element.querySelectorAll('vscode-option')).find((option) => (option as HTMLElement & { value: string }).value === (element as HTMLElement & { value: string }).value)?.textContent ?? '').trim(),
        shown: text?.innerText.trim() ?? '',
        cut: text === null || text.scrollWidth > text.clientWidth,
        right: element.getBoundingClientRect().right,
        viewWidth: document.documentElement.clientWidth,
      };
    }),
  );
  return all.filter((reading) => reading.shownAtAll).map(({ shownAtAll: _, ...reading }) => reading);
}

/** The problems with `readings` at `width`: a value not shown whole, or a picker past the view's edge; none is `[]`. */
export function unreadablePickers(readings: PickerReading[], width: number): string[] {
  return readings.flatMap((reading) => {
    const problems: string[] = [];
    if (reading.cut || reading.shown !== reading.label) problems.push(`at ${width} px the ${reading.name} picker shows "${reading.shown}" of "${reading.label}"${reading.cut ? ' (cut)' : ''}`);
    if (reading.right > reading.viewWidth + 1) problems.push(`at ${width} px the ${reading.name} picker runs past the view (${reading.right} > ${reading.viewWidth})`);
    return problems;
  });
}
