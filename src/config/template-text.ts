import type Handlebars from 'handlebars';
import { onFirstUse } from '../vocabulary/first-use';

/**
 * Handlebars for template text that lives in definition files (an agent's
 * system prompt, a slash command's body), with the same rules as the
 * prompts/ templates: no HTML escaping, strict (a missing variable is an
 * error), and the `eq` helper. Its parser and compiler are loaded when such
 * a text is first checked or rendered, not at every start.
 */
const handlebars = onFirstUse(() => {
  const environment = (require('handlebars') as typeof Handlebars).create();
  environment.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  return environment;
});

/** The syntax error in `source`, if any, so a broken template fails when its file is loaded. */
export function templateSyntaxError(source: string): string | undefined {
  try {
    handlebars().parse(source);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Renders `source`; `label` (usually the file) names the template when it fails. */
export function renderTemplateText(source: string, context: Record<string, unknown>, label: string): string {
  try {
    return handlebars().compile(source, { noEscape: true, strict: true })(context).trim() + '\n';
  } catch (err) {
    throw new Error(`Template in ${label} failed: ${(err as Error).message}`);
  }
}
