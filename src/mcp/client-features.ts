/**
 * What Crow's MCP client offers servers beyond calling their tools: the
 * session's workspace folders as roots (and word when they change), and
 * heed of a server's word that its list of tools, resources or prompts
 * changed, or that a resource it was asked to watch did. Declared only
 * where a session can answer (a client without folders declares no roots).
 */
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities, Root } from '@modelcontextprotocol/sdk/types.js';
import type { Attributes, Span } from '../telemetry/span';
import { HOST_PATHS, type PathSemantics, resolveAs } from '../vocabulary/path-semantics';

/** The lists a server may say changed. */
export type McpList = 'tools' | 'resources' | 'prompts';

/** Starts a span of an MCP exchange outside any tool call (a server's request, a refreshed listing). */
export type McpSpanStart = (name: string, attributes: Attributes) => Span;

/** What the client side offers one connection; every part optional. */
export interface McpClientFeatures {
  /** The session's workspace folders (absolute paths), asked at each roots/list. */
  roots?: () => readonly string[];
  /** Told when the server says a list of its changed (notifications/tools/list_changed and the like). */
  listChanged?: (list: McpList) => void;
  /** Told each notifications/resources/updated the server sends (the URI it names). */
  resourceUpdated?: (uri: string) => void;
  /** Where spans of the server's requests go. */
  span?: McpSpanStart;
}

/** The capabilities a client with `features` declares. */
export function capabilitiesOf(features: McpClientFeatures): ClientCapabilities {
  return features.roots ? { roots: { listChanged: true } } : {};
}

/**
 * The folders as roots: file:// URIs named by their last segment, written
 * as the platform's paths read (`C:\Work` is `file:///C:/Work`, a share
 * `\\server\share` is `file://server/share`, a `\\?\` prefix dropped).
 */
export function rootsOf(folders: readonly string[], semantics: PathSemantics = HOST_PATHS): Root[] {
  return folders.map((folder) => {
    const absolute = resolveAs(semantics, undefined, folder);
    return { uri: pathToFileURL(absolute, { windows: semantics.windowsNames }).href, name: semantics.path.basename(absolute) || absolute };
  });
}

/** Answers the server's requests and heeds its notifications as `features` say; before connecting. */
export function offerFeatures(client: Client, server: string, features: McpClientFeatures): void {
  // Required here, not imported: the SDK loads with the first server.
  const types = require('@modelcontextprotocol/sdk/types.js') as typeof TypesModule;
  const { roots, listChanged, resourceUpdated, span } = features;
  if (roots) {
    client.setRequestHandler(types.ListRootsRequestSchema, () => {
      const listed = rootsOf(roots());
      span?.(`mcp roots/list ${server}`, { 'crow.mcp.server': server, 'crow.mcp.roots': listed.map((root) => root.uri) }).end('ok');
      return { roots: listed };
    });
  }
  if (listChanged) {
    client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => listChanged('tools'));
    client.setNotificationHandler(types.ResourceListChangedNotificationSchema, () => listChanged('resources'));
    client.setNotificationHandler(types.PromptListChangedNotificationSchema, () => listChanged('prompts'));
  }
  if (resourceUpdated) client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (notice) => resourceUpdated(notice.params.uri));
}
