import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Handlebars from 'handlebars';

/**
 * Every prompt is a handlebars template under `prompts/`; no prompt text
 * lives in code. Templates are found next to the bundle (dist/../prompts) or
 * the source tree, and compiled once.
 */
export class PromptRegistry {
  private readonly compiled = new Map<string, Handlebars.TemplateDelegate>();

  constructor(readonly folder: string = findPromptsFolder()) {}

  render(name: string, context: Record<string, unknown>): string {
    let template = this.compiled.get(name);
    if (!template) {
      const path = join(this.folder, `${name}.hbs`);
      if (!existsSync(path)) throw new Error(`Prompt template "${name}" not found: expected ${path}`);
      template = Handlebars.compile(readFileSync(path, 'utf8'), { noEscape: true, strict: true });
      this.compiled.set(name, template);
    }
    return template(context).trim() + '\n';
  }
}

function findPromptsFolder(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'prompts');
    if (existsSync(join(candidate, 'system.hbs'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`Cannot find the prompts folder above ${__dirname}`);
  }
}

export interface SystemPromptContext {
  agentName: string;
  workspaceRoot: string;
  tools: string[];
  date?: string;
  platform?: string;
}

export function renderSystemPrompt(prompts: PromptRegistry, context: SystemPromptContext): string {
  return prompts.render('system', {
    date: new Date().toISOString().slice(0, 10),
    platform: process.platform,
    hasTaskComplete: context.tools.includes('task_complete'),
    ...context,
  });
}
