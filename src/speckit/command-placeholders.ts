/** Spec Kit's placeholders in a command file, filled as its integrations fill them (for presets' and extensions' commands). */
import type { CommandInput } from '../agents/programmatic-command';
import { initOptions } from './features';
import { commandBody, commandFrontmatter } from './preset-commands';
import { withCommandNames } from './templates';

/** `sh`, `ps` or `py`: the scripts `specify init` installed (init-options.json's `script`). */
export async function scriptKind(input: CommandInput): Promise<{ kind: string; agent: string }> {
  const options = await initOptions(input.workspace);
  const kind = typeof options.script === 'string' ? options.script : 'sh';
  const agent = typeof options.integration === 'string' ? options.integration : typeof options.ai === 'string' ? options.ai : 'crow';
  return { kind, agent };
}

/**
 * A command file's body with Spec Kit's placeholders filled as its
 * integrations fill them: `{SCRIPT}` is the frontmatter's script for the
 * project's kind (paths made project-relative, `{ARGS}` in it the
 * arguments), `$ARGUMENTS` and `{ARGS}` the arguments, `__AGENT__` the
 * integration, and `__SPECKIT_COMMAND_X__` our command names.
 */
export function fillPlaceholders(text: string, args: string, project: { kind: string; agent: string }): string {
  const scripts = commandFrontmatter(text).scripts;
  const table = scripts && typeof scripts === 'object' && !Array.isArray(scripts) ? (scripts as Record<string, unknown>) : {};
  const script = [project.kind, 'sh', 'py', 'ps'].map((kind) => table[kind]).find((value): value is string => typeof value === 'string');
  let body = commandBody(text);
  if (script !== undefined) body = body.split('{SCRIPT}').join(projectPaths(script).split('{ARGS}').join(args));
  body = body.split('$ARGUMENTS').join(args).split('{ARGS}').join(args).split('__AGENT__').join(project.agent);
  return withCommandNames(body);
}

/** Spec Kit's repository-relative script paths as they are in a project (`scripts/bash/x.sh` → `.specify/scripts/bash/x.sh`). */
function projectPaths(command: string): string {
  return command
    .replace(/\.\.\/\.\.\/(scripts|templates|memory)\//g, '.specify/$1/')
    .replace(/(^|[\s`"'(])(?:\.\/)?(scripts|templates|memory)\//g, '$1.specify/$2/');
}
