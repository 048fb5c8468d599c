/**
 * Wording shared by the CLI and VS Code that VS Code shows in the display
 * language: such a module takes a `Translate` (VS Code passes its `t`,
 * @vscode/l10n's) and writes each message as a literal `t('…')`, so
 * scripts/l10n-export.ts reads it into the bundle (its SHARED_WORDING).
 * The CLI passes none and reads the English.
 */

/** Translates a message whose values are `{0}`, `{1}`, …; `english` when none is given. */
export type Translate = (message: string, ...values: (string | number)[]) => string;

/** The English itself: values put in their places (once: a value holding "{1}" stays as it is). */
export const english: Translate = (message, ...values) => message.replace(/\{(\d+)\}/g, (whole, index: string) => String(values[Number(index)] ?? whole));
