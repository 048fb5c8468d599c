import type { ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { allPages } from './list-pages';
import type { McpConnection } from './mcp-connection';

export type { ReadResourceResult, Resource as McpResource, ResourceTemplate as McpResourceTemplate };

/** What one server offers to read: its resources and the templates that name more. */
export interface McpResourceListing {
  resources: Resource[];
  templates: ResourceTemplate[];
}

const NOTHING: McpResourceListing = Object.freeze({ resources: [], templates: [] }) as McpResourceListing;

/** Every resource and template the server lists (all pages, up to MAX_LIST_PAGES of each); none when it offers no resources. */
export async function listResources(connection: McpConnection): Promise<McpResourceListing> {
  const listing = await connection.request('resources', 'list its resources', async (client, options) => {
    const resources = await allPages((cursor) => client.listResources(cursor === undefined ? {} : { cursor }, options), (page) => page.resources);
    // Templates are optional: a server that lists resources may refuse to list templates.
    const templates = await allPages((cursor) => client.listResourceTemplates(cursor === undefined ? {} : { cursor }, options), (page) => page.resourceTemplates).catch(
      () => [],
    );
    return { resources, templates };
  });
  return listing ?? NOTHING;
}

/** The resource's contents as the server gives them; throws naming the server when it cannot, or offers no resources. */
export async function readResource(connection: McpConnection, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const result = await connection.request('resources', `read ${uri}`, (client, options) => client.readResource({ uri }, options), signal);
  if (result === undefined) throw new Error(`MCP server "${connection.name}" offers no resources.`);
  return result;
}
