/**
 * What a composer offers while a person types a prompt: after a `/` at its
 * start, the folder's slash commands and the MCP servers' prompts; after an
 * `@`, the resources the servers list, each as the mention that attaches
 * it; after a prompt command's name, or inside a resource template's
 * mention, what the server completes (composer-completions.ts). The
 * servers start at the first such question when no prompt has
 * started them yet, as the first prompt would. A server's names and
 * descriptions are its own text: clipped, control characters made visible,
 * and at most MAX_SUGGESTIONS come back however much a server lists.
 */
import type { McpServers } from '../mcp/mcp-servers';
import { offeredPromptCommands } from '../mcp/prompt-commands';
import { mentionOf } from '../mcp/resource-attachments';
import type { ACPSession } from '../session/acp-session';
import type { SuggestTrigger, Suggestion } from '../vocabulary/suggestion';
import type { WorkspaceCatalog } from './catalog';
import { argumentSuggestions, shown, templateSuggestions } from './composer-completions';
import { mcpToolContext } from './mcp-context';
import { offerMcpCommands, sessionTools, type SharedPromptState } from './prompt-shared';
import type { HostSessionOptions } from './session-options';

/** Suggestions one question returns at most. */
export const MAX_SUGGESTIONS = 50;

/** Who is asking: the session's shared state, its options and the session itself. */
export interface OfferingSession {
  shared: SharedPromptState;
  options: HostSessionOptions;
  session: ACPSession;
  /** Whether a prompt runs now (it starts the servers itself). */
  busy: boolean;
}

export async function composerSuggestions(from: OfferingSession, trigger: SuggestTrigger, query: string): Promise<Suggestion[]> {
  const catalog = await from.options.catalog();
  const servers = await startedServers(from, catalog);
  const space = query.search(/\s/);
  // After the command's name, the server completes the argument being typed (it filters by what was typed itself).
  if (trigger === '/' && space >= 0) return servers ? (await argumentSuggestions(servers, query.slice(0, space), query.slice(space + 1))).slice(0, MAX_SUGGESTIONS) : [];
  if (trigger === '@' && servers && query.includes(':')) {
    const values = await templateSuggestions(servers, query);
    if (values.some((suggestion) => suggestion.insert.endsWith(' '))) return values.slice(0, MAX_SUGGESTIONS);
  }
  const fits = matcher(query);
  const offered = trigger === '/' ? await commands(catalog, servers) : servers ? [...(await resources(servers)), ...(await templateSuggestions(servers, ''))] : [];
  return offered.filter((suggestion) => fits(suggestion)).slice(0, MAX_SUGGESTIONS);
}

/** The session's servers, started now when nothing has started them; none when the folder and the door configure none. */
async function startedServers(from: OfferingSession, catalog: WorkspaceCatalog): Promise<McpServers | undefined> {
  const { shared, options, session } = from;
  if (shared.mcp || from.busy) return shared.mcp?.servers;
  const context = mcpToolContext(shared, options, session, {
    // No prompt runs: a problem goes to the door as a notice.
    route: (level, message, title, action) => (shared.noticeSink ?? options.observer?.notice)?.(level, message, title, action),
    slow: () => undefined,
  });
  await sessionTools(shared, catalog, context);
  // A door that offers commands hears of the servers' prompts now rather than at the first prompt.
  void offerMcpCommands(shared, options.observer?.commandsOffered).catch(() => undefined);
  return serversOf(shared);
}

/** The servers `shared` holds now (read after an await, which the compiler's narrowing does not see). */
function serversOf(shared: SharedPromptState): McpServers | undefined {
  return shared.mcp?.servers;
}

async function commands(catalog: WorkspaceCatalog, servers: McpServers | undefined): Promise<Suggestion[]> {
  const folder = (catalog.commands?.().list() ?? []).map(({ name, description, hint }) => ({
    label: `/${name}`,
    insert: `/${name} `,
    detail: hint ? `${description} (${hint})` : description,
  }));
  const prompts = servers ? await offeredPromptCommands(servers) : [];
  const mcp = prompts.map(({ name, description, hint }) => ({ label: `/${name}`, insert: `/${name} `, detail: shown(`${description} (${hint})`) }));
  return [...folder, ...mcp];
}

async function resources(servers: McpServers): Promise<Suggestion[]> {
  const listed = await Promise.all(servers.names.map(async (server) => ({ server, resources: (await servers.resources(server)).resources })));
  return listed.flatMap(({ server, resources }) =>
    resources.flatMap((resource) => {
      const mention = mentionOf(server, resource.uri);
      if (mention === undefined) return [];
      return [{ label: shown(resource.title ?? resource.name), insert: `${mention} `, detail: shown(`${server} · ${resource.uri}`) }];
    }),
  );
}

/** Whether a suggestion fits what was typed after the trigger: each word, in any case, somewhere in its label, insert or detail. */
function matcher(query: string): (suggestion: Suggestion) => boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return ({ label, insert, detail }) => {
    const text = `${label} ${insert} ${detail ?? ''}`.toLowerCase();
    return words.every((word) => text.includes(word));
  };
}
