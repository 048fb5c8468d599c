/**
 * The composer's suggestions that a server computes (completion/complete):
 * the value of the argument being typed after `/mcp__SERVER__PROMPT`
 * (`name=par…`, or the next value in order), and the variable of a
 * resource template being typed after `@server:` (`@fx:fx://notes/1…`).
 * Values a prompt line cannot carry as one word (with spaces) are left
 * out; a server that cannot complete offers nothing rather than an error.
 */
import type { McpResourceTemplate } from '../mcp/mcp-resources';
import { givenArguments } from '../mcp/mcp-prompts';
import type { McpServers } from '../mcp/mcp-servers';
import { mentionOf } from '../mcp/resource-attachments';
import type { Suggestion } from '../vocabulary/suggestion';
import { clip, shownText } from '../vocabulary/text';

/** Values of the argument the person is typing in `line` (what follows the command `name`); [] for a command that is no MCP prompt. */
export async function argumentSuggestions(servers: McpServers, name: string, line: string): Promise<Suggestion[]> {
  const command = (await servers.promptCommands()).find((candidate) => candidate.name === name);
  if (!command) return [];
  const declared = command.prompt.arguments ?? [];
  const words = line.split(/\s+/);
  const current = words.pop() ?? '';
  const previous = words.filter(Boolean);
  const named = current.includes('=') || previous.some((word) => word.includes('='));
  if (named && !current.includes('=')) {
    // Named arguments so far: the names not given yet.
    const given = new Set(previous.map((word) => word.slice(0, word.indexOf('='))));
    return declared
      .filter((argument) => !given.has(argument.name) && argument.name.startsWith(current))
      .map((argument) => ({ label: `${argument.name}=`, insert: `${argument.name}=`, detail: describe(argument) }));
  }
  const key = named ? current.slice(0, current.indexOf('=')) : undefined;
  const argument = key !== undefined ? declared.find((candidate) => candidate.name === key) : declared[previous.length];
  if (!argument) return [];
  const partial = key !== undefined ? current.slice(key.length + 1) : current;
  let earlier: Record<string, string> = {};
  try {
    earlier = givenArguments(command.prompt, previous.join(' ')).args;
  } catch {
    // Earlier words that do not fit the prompt narrow nothing.
  }
  const values = await completed(servers, command.server, { ref: { type: 'ref/prompt', name: command.prompt.name }, argument: argument.name, value: partial, arguments: earlier });
  return values.map((value) => ({ label: value, insert: `${key !== undefined ? `${key}=` : ''}${value} `, detail: describe(argument) }));
}

/**
 * Resource templates of one variable as mentions: listed as the mention up
 * to their variable while the person has not typed that far, and once they
 * have, the server's values for it.
 */
export async function templateSuggestions(servers: McpServers, query: string): Promise<Suggestion[]> {
  const colon = query.indexOf(':');
  const server = colon >= 0 ? query.slice(0, colon) : undefined;
  const typed = colon >= 0 ? query.slice(colon + 1) : '';
  const names = server !== undefined ? servers.names.filter((name) => name === server) : servers.names;
  const listed = await Promise.all(names.map(async (name) => ({ name, templates: (await servers.resources(name)).templates })));
  const offers = await Promise.all(
    listed.flatMap(({ name, templates }) =>
      templates.flatMap((template) => {
        const parts = oneVariable(template.uriTemplate);
        if (!parts) return [];
        if (server !== undefined && typed.startsWith(parts.before)) return [valuesOf(servers, name, template, parts, typed.slice(parts.before.length))];
        const start = mentionOf(name, `${parts.before}x`)?.slice(0, -1);
        return start ? [Promise.resolve([{ label: shown(template.title ?? template.name), insert: start, detail: shown(`${name} · ${template.uriTemplate}`) }])] : [];
      }),
    ),
  );
  return offers.flat();
}

async function valuesOf(servers: McpServers, server: string, template: McpResourceTemplate, parts: TemplateParts, partial: string): Promise<Suggestion[]> {
  const values = await completed(servers, server, { ref: { type: 'ref/resource', uri: template.uriTemplate }, argument: parts.variable, value: partial });
  return values.flatMap((value) => {
    const mention = mentionOf(server, `${parts.before}${value}${parts.after}`);
    return mention ? [{ label: value, insert: `${mention} `, detail: shown(`${server} · ${template.uriTemplate}`) }] : [];
  });
}

interface TemplateParts {
  before: string;
  variable: string;
  after: string;
}

/** A URI template with exactly one simple variable (`fx://notes/{id}`), split around it; undefined for any other. */
function oneVariable(uriTemplate: string): TemplateParts | undefined {
  const match = /^([^{}]*)\{([A-Za-z0-9_]+)\}([^{}]*)$/.exec(uriTemplate);
  return match ? { before: match[1]!, variable: match[2]!, after: match[3]! } : undefined;
}

/** The server's values for one argument, each one word; none when it cannot complete. */
async function completed(servers: McpServers, server: string, query: Parameters<McpServers['complete']>[1]): Promise<string[]> {
  try {
    return (await servers.complete(server, query)).values.filter((value) => value !== '' && !/\s/.test(value));
  } catch {
    return [];
  }
}

function describe(argument: { name: string; description?: string | undefined }): string {
  return shown(argument.description ? `${argument.name}: ${argument.description}` : argument.name);
}

/** A server's text as a suggestion shows it: clipped, its control characters made visible. */
export function shown(text: string): string {
  return shownText(clip(text, 300));
}
