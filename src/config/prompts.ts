import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Handlebars from 'handlebars';
import { onFirstUse } from '../vocabulary/first-use';
import { builtinTemplate } from './builtin-snapshot';
import { configHome, projectConfigDir } from './paths';

/** How every prompt template compiles (the build precompiles the built-in ones the same way). */
export const TEMPLATE_OPTIONS = { noEscape: true, strict: true } as const;

/** Files whose text is given to every agent as the project's own instructions, first found wins. */
const PROJECT_INSTRUCTION_FILES = ['AGENTS.md', '.crow/instructions.md'];
/** Project instructions longer than this are cut, so one huge file cannot crowd out the task. */
const MAX_INSTRUCTIONS_CHARS = 20_000;

/**
 * Every prompt is a handlebars template; no prompt text lives in code.
 * A template is looked up in the override folders first (project, then
 * user), then in the built-in `prompts/` shipped next to the bundle.
 * Templates compile once, in strict mode: a missing variable is an error.
 * A built-in template whose text is the one the build precompiled comes from
 * the build's snapshot instead (builtin-snapshot.ts).
 */
export class PromptRegistry {
  private readonly compiled = new Map<string, Handlebars.TemplateDelegate>();
  /** Runs templates the build precompiled: handlebars' runtime, without its parser and compiler. */
  private readonly runtime = withHelpers((require('handlebars/runtime') as typeof Handlebars).create());
  /** Compiles the other templates (overrides, a built-in changed after the build): loaded when one is first needed. */
  private readonly compiler = onFirstUse(() => withHelpers((require('handlebars') as typeof Handlebars).create()));
  readonly folders: readonly string[];

  /**
   * `snapshotFolder` holds the build's snapshot (the bundle's folder; from
   * the sources there is none, and every template compiles).
   */
  constructor(
    overrideFolders: readonly string[] = [],
    private readonly builtinFolder: string = findBuiltinPrompts(),
    private readonly snapshotFolder: string = __dirname,
  ) {
    this.folders = [...overrideFolders, builtinFolder];
  }

  /** The registry for a workspace: `.crow/prompts/`, then `~/.config/crow-agent/prompts/`, then built-in. */
  static forWorkspace(workspaceRoot: string, env: NodeJS.ProcessEnv = process.env): PromptRegistry {
    return new PromptRegistry([join(projectConfigDir(workspaceRoot), 'prompts'), join(configHome(env), 'prompts')]);
  }

  render(name: string, context: Record<string, unknown>): string {
    let template = this.compiled.get(name);
    if (!template) {
      const path = this.locate(name);
      const text = readFileSync(path, 'utf8');
      template = this.precompiled(path, text) ?? this.compiler().compile(text, TEMPLATE_OPTIONS);
      this.compiled.set(name, template);
    }
    try {
      return template(context).trim() + '\n';
    } catch (err) {
      throw new Error(`Prompt template "${name}" (${this.locate(name)}) failed: ${(err as Error).message}`);
    }
  }

  /** A template written in place (an agent definition's inline handoff); compiled once per text. */
  renderText(text: string, context: Record<string, unknown>): string {
    let template = this.compiled.get(`inline:${text}`);
    if (!template) {
      template = this.compiler().compile(text, TEMPLATE_OPTIONS);
      this.compiled.set(`inline:${text}`, template);
    }
    try {
      return template(context).trim() + '\n';
    } catch (err) {
      throw new Error(`An agent definition's inline template failed: ${(err as Error).message}. Its variables are those of prompts/review-handoff.hbs (task, todo_state, summary, round, …).`);
    }
  }

  /** The build's precompiled template for a built-in file still as the build read it; undefined otherwise. */
  private precompiled(path: string, text: string): Handlebars.TemplateDelegate | undefined {
    if (dirname(path) !== this.builtinFolder) return undefined;
    const spec = builtinTemplate(dirname(this.builtinFolder), this.snapshotFolder, path, text);
    if (spec === undefined) return undefined;
    try {
      // The spec is JavaScript the build wrote beside the bundle (as trusted as the bundle itself).
      return this.runtime.template(new Function(`return ${spec}`)() as TemplateSpecification);
    } catch {
      return undefined;
    }
  }

  /** The file a template name resolves to. */
  locate(name: string): string {
    for (const folder of this.folders) {
      const path = join(folder, `${name}.hbs`);
      if (existsSync(path)) return path;
    }
    throw new Error(`Prompt template "${name}" not found: looked for ${name}.hbs in ${this.folders.join(', ')}`);
  }
}

/** A handlebars environment with the helpers every template may use. */
function withHelpers(environment: typeof Handlebars): typeof Handlebars {
  environment.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  return environment;
}

function findBuiltinPrompts(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'prompts');
    if (existsSync(join(candidate, 'system.hbs'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`Cannot find the prompts folder above ${__dirname}`);
  }
}

/** What every template may use, documented in README ("Prompt context"). */
export interface PromptContext {
  agentName: string;
  workspaceRoot: string;
  date: string;
  platform: string;
  /** The text of AGENTS.md (or .crow/instructions.md) when the project has one; '' otherwise. */
  project_instructions: string;
  project_instructions_file: string;
}

export function basePromptContext(agentName: string, workspaceRoot: string): PromptContext {
  const instructions = readProjectInstructions(workspaceRoot);
  return {
    agentName,
    workspaceRoot,
    date: new Date().toISOString().slice(0, 10),
    platform: process.platform,
    project_instructions: instructions?.text ?? '',
    project_instructions_file: instructions?.file ?? '',
  };
}

function readProjectInstructions(workspaceRoot: string): { file: string; text: string } | undefined {
  for (const file of PROJECT_INSTRUCTION_FILES) {
    try {
      const text = readFileSync(join(workspaceRoot, file), 'utf8').trim();
      if (text === '') continue;
      const cut = text.length > MAX_INSTRUCTIONS_CHARS ? `${text.slice(0, MAX_INSTRUCTIONS_CHARS)}\n[… cut]` : text;
      return { file, text: cut };
    } catch {
      // not there: try the next
    }
  }
  return undefined;
}

export interface SystemPromptOptions {
  /** Template name: "system" for workers, "reviewer" for coagents, or a definition's own. */
  template?: string;
  agentName: string;
  workspaceRoot: string;
  tools: string[];
  /** Whether a reviewer decides when the task is done. */
  reviewed?: boolean;
  date?: string;
  platform?: string;
}

export function renderSystemPrompt(prompts: PromptRegistry, options: SystemPromptOptions): string {
  const { template = 'system', reviewed = false, ...rest } = options;
  return prompts.render(template, {
    ...basePromptContext(options.agentName, options.workspaceRoot),
    hasTaskComplete: options.tools.includes('task_complete'),
    reviewed,
    ...rest,
  });
}
