/**
 * MCP resources a person attaches to a prompt, read through their server:
 * `@server:uri` in the text (any door), and a link whose target is a
 * resource a session server lists (what an ACP client's resource link
 * becomes). What a server returns is hostile text: each resource is capped,
 * wrapped so it cannot close its own wrapper, and a prompt takes a bounded
 * number of them. A resource attached once is watched (where its server
 * offers subscriptions), and attached again at the next prompt after it changed.
 */
import type { ImageBlock, TextBlock, UserBlock } from '../llm/types';
import { capOutput } from '../tools/tool-output-notes';
import { errorText } from '../vocabulary/text';
import type { ReadResourceResult } from './mcp-resources';
import type { McpServers } from './mcp-servers';
import { wrappedResource } from './resource-text';

/** Resources one prompt attaches at most; further mentions are left as they are written. */
export const MAX_ATTACHED_RESOURCES = 10;
/** Characters of one resource's text the model reads; the rest is cut with a note. */
export const MAX_RESOURCE_CHARS = 50_000;

/** `@server:uri`, the URI with a scheme; trailing sentence punctuation is not part of it. */
const MENTION = /(?:^|(?<=\s))@([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*:[^\s]*[^\s.,;:!?'")\]])/g;
/** A Markdown link's target: `[title](uri)`, as promptBlocks writes a resource link. */
const LINK = /\]\(([A-Za-z][A-Za-z0-9+.-]*:[^\s)]+)\)/g;

/** How a person mentions `uri` of `server` so that a prompt attaches it; undefined when no mention can (a URI with spaces, say). */
export function mentionOf(server: string, uri: string): string | undefined {
  const mention = `@${server}:${uri}`;
  const [match] = mention.matchAll(MENTION);
  return match?.[0] === mention ? mention : undefined;
}

interface Attachment {
  server: string;
  uri: string;
}

/**
 * The prompt's blocks followed by the resources it attaches, each read from
 * its server (or a note saying why it could not be). Unchanged when it
 * attaches none or the session has no servers.
 */
export async function attachResources(blocks: readonly UserBlock[], servers: McpServers | undefined, supportsImages: boolean, signal: AbortSignal): Promise<UserBlock[]> {
  if (!servers) return [...blocks];
  const attachments = await attachmentsIn(blocks, servers);
  const attached: UserBlock[] = [];
  for (const { server, uri } of attachments) {
    try {
      attached.push(...contentBlocks(server, uri, await servers.readResource(server, uri, signal), supportsImages));
      // Watched from now on, so a change reaches the next prompt (not waited for: a slow server must not hold this one up).
      void servers.watchResource(server, uri);
    } catch (err) {
      if (signal.aborted) throw err;
      attached.push(text(`[The MCP resource ${uri} of server "${server}" could not be read: ${errorText(err)}]`));
    }
  }
  return [...blocks, ...attached];
}

/**
 * The resources attached earlier in the session that their servers said
 * changed since, read again and attached once each (however many notices
 * came), after a line saying so; MAX_ATTACHED_RESOURCES at most, the rest
 * at a later prompt.
 */
export async function refreshedResources(servers: McpServers | undefined, supportsImages: boolean, signal: AbortSignal): Promise<UserBlock[]> {
  if (!servers) return [];
  const refreshed: UserBlock[] = [];
  for (const { server, uri } of servers.changedResources(MAX_ATTACHED_RESOURCES)) {
    refreshed.push(text(`[The MCP resource ${uri} of server "${server}", attached earlier in this conversation, changed since; this is its content now:]`));
    try {
      refreshed.push(...contentBlocks(server, uri, await servers.readResource(server, uri, signal), supportsImages));
    } catch (err) {
      if (signal.aborted) throw err;
      refreshed.push(text(`[It could not be read again: ${errorText(err)}]`));
    }
  }
  return refreshed;
}

/** Mentions first, then links to listed resources; each once, MAX_ATTACHED_RESOURCES at most. */
async function attachmentsIn(blocks: readonly UserBlock[], servers: McpServers): Promise<Attachment[]> {
  const texts = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  const names = new Set(servers.names);
  const found: Attachment[] = [];
  const add = (attachment: Attachment): void => {
    if (found.length >= MAX_ATTACHED_RESOURCES) return;
    if (!found.some((known) => known.server === attachment.server && known.uri === attachment.uri)) found.push(attachment);
  };
  for (const line of texts) {
    for (const [, server, uri] of line.matchAll(MENTION)) if (names.has(server!)) add({ server: server!, uri: uri! });
  }
  const linked = texts.flatMap((line) => [...line.matchAll(LINK)].map((match) => match[1]!));
  if (linked.length === 0) return found;
  for (const server of names) {
    const { resources } = await servers.resources(server);
    const listed = new Set(resources.map((resource) => resource.uri));
    for (const uri of linked) if (listed.has(uri)) add({ server, uri });
  }
  return found;
}

/** A resource's contents as blocks: text wrapped and capped, images for a model that sees them, a note for the rest. */
function contentBlocks(server: string, uri: string, result: ReadResourceResult, supportsImages: boolean): UserBlock[] {
  if (result.contents.length === 0) return [text(`[The MCP resource ${uri} of server "${server}" is empty.]`)];
  return result.contents.map((content): UserBlock => {
    const mimeType = content.mimeType ?? ('text' in content ? 'text/plain' : 'application/octet-stream');
    if ('text' in content && typeof content.text === 'string') {
      return text(wrappedResource(server, content.uri, mimeType, capOutput(content.text, MAX_RESOURCE_CHARS)));
    }
    const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : '';
    if (supportsImages && mimeType.startsWith('image/') && blob !== '') return { type: 'image', mimeType, data: blob } satisfies ImageBlock;
    return text(`[The MCP resource ${content.uri} of server "${server}" is binary (${mimeType}, ${Math.floor((blob.length * 3) / 4)} bytes), which the model cannot read.]`);
  });
}

function text(value: string): TextBlock {
  return { type: 'text', text: value };
}
