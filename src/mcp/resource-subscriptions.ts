/**
 * Subscriptions to the resources a session attached (MCP specification,
 * server/resources, "Subscriptions"): a resource attached from a server that
 * declares `resources.subscribe` is subscribed to; the server's
 * notifications/resources/updated for it only mark it changed (a flood of
 * them costs a set lookup each); the next prompt takes the marks and
 * attaches each changed resource once. Closing the session unsubscribes.
 */
import { errorText } from '../vocabulary/text';
import type { McpSpanStart } from './client-features';
import type { McpConnection } from './mcp-connection';

/** Resources one session subscribes to at most; later attachments are read, not watched. */
export const MAX_SUBSCRIPTIONS = 50;
/** How long closing waits for a server to take back its subscriptions. */
const UNSUBSCRIBE_TIMEOUT_MS = 2_000;

/** A resource a server said changed since it was attached. */
export interface ChangedResource {
  server: string;
  uri: string;
  /** How many notices said so (they are counted, not kept). */
  notices: number;
}

export class ResourceSubscriptions {
  /** Subscribed resources by `server\0uri`, with the notices counted since last taken (0: unchanged). */
  private readonly watched = new Map<string, { server: string; uri: string; notices: number }>();
  /** Subscriptions under way or done, so a resource is subscribed to once. */
  private readonly asked = new Set<string>();

  constructor(private readonly span?: McpSpanStart) {}

  /** Subscribes to `uri` of the connection's server when it offers subscriptions; once per resource, MAX_SUBSCRIPTIONS at most. */
  async subscribe(connection: McpConnection, uri: string): Promise<void> {
    const key = keyOf(connection.name, uri);
    if (this.asked.has(key) || this.asked.size >= MAX_SUBSCRIPTIONS) return;
    this.asked.add(key);
    const span = this.span?.(`mcp resources/subscribe ${connection.name}`, { 'crow.mcp.server': connection.name, 'crow.mcp.uri': uri });
    try {
      const subscribed = await connection.request('resources', `subscribe to ${uri}`, async (client, options) => {
        if (client.getServerCapabilities()?.resources?.subscribe !== true) return false;
        await client.subscribeResource({ uri }, options);
        return true;
      });
      if (subscribed === true) this.watched.set(key, { server: connection.name, uri, notices: 0 });
      span?.set({ 'crow.mcp.subscribed': subscribed === true });
      span?.end('ok');
    } catch (err) {
      span?.end('error', errorText(err));
    }
  }

  /** The server said `uri` changed: marked, when it is one we subscribed to. */
  updated(server: string, uri: string): void {
    const entry = this.watched.get(keyOf(server, uri));
    if (entry) entry.notices++;
  }

  /** Read again anyway (the prompt attaches it): what was said before no longer needs telling. */
  seen(server: string, uri: string): void {
    const entry = this.watched.get(keyOf(server, uri));
    if (entry) entry.notices = 0;
  }

  /** The resources marked changed, at most `max` of them (the rest stay marked), their marks cleared. */
  takeChanged(max: number): ChangedResource[] {
    const taken: ChangedResource[] = [];
    for (const entry of this.watched.values()) {
      if (entry.notices === 0) continue;
      if (taken.length >= max) break;
      taken.push({ ...entry });
      entry.notices = 0;
    }
    return taken;
  }

  /** Takes back every subscription (resources/unsubscribe), each bounded in time; failures are the server's to mind. */
  async close(connectionOf: (server: string) => McpConnection | undefined): Promise<void> {
    const entries = [...this.watched.values()];
    this.watched.clear();
    await Promise.all(
      entries.map(async ({ server, uri }) => {
        const connection = connectionOf(server);
        const span = this.span?.(`mcp resources/unsubscribe ${server}`, { 'crow.mcp.server': server, 'crow.mcp.uri': uri });
        try {
          await connection?.request('resources', `unsubscribe from ${uri}`, (client, options) => client.unsubscribeResource({ uri }, options), AbortSignal.timeout(UNSUBSCRIBE_TIMEOUT_MS));
          span?.end('ok');
        } catch (err) {
          span?.end('error', errorText(err));
        }
      }),
    );
  }
}

function keyOf(server: string, uri: string): string {
  return `${server}\u0000${uri}`;
}
