/**
 * What the composer offers from servers that list hostile or unusable
 * things: names with terminal escapes and bidirectional overrides shown as
 * marks, URIs no mention can carry left out, and a flood cut to
 * MAX_SUGGESTIONS.
 */
import assert from 'node:assert/strict';
import { composerSuggestions, MAX_SUGGESTIONS, type OfferingSession } from '../../../src/host/composer-offers';
import type { CompletionQuery, Completions } from '../../../src/mcp/mcp-completions';
import type { McpServers } from '../../../src/mcp/mcp-servers';

function offering(
  resources: { uri: string; name: string; title?: string }[],
  templates: { uriTemplate: string; name: string }[] = [],
  complete: (server: string, query: CompletionQuery) => Promise<Completions> = async () => ({ values: [], hasMore: false }),
): OfferingSession {
  const servers = {
    names: ['evil'],
    resources: async () => ({ resources, templates }),
    promptCommands: async () => [],
    complete,
  } as unknown as McpServers;
  return {
    shared: { composition: undefined, mcp: { key: 'k', servers }, exporter: undefined, told: new Set() },
    options: { catalog: () => ({}) } as unknown as OfferingSession['options'],
    session: {} as OfferingSession['session'],
    busy: false,
  };
}

describe('composer suggestions from a hostile server', () => {
  it('shows control characters and direction overrides in names as marks, and leaves out URIs no mention can carry', async () => {
    const items = await composerSuggestions(
      offering([
        { uri: 'doc://a', name: 'a\u001b[2J\u202eevil' },
        { uri: 'doc://with space', name: 'spaced' },
        { uri: 'doc://ends.', name: 'dotted' },
      ]),
      '@',
      '',
    );
    assert.deepEqual(items, [{ label: 'a\\u001b[2J\\u202eevil', insert: '@evil:doc://a ', detail: 'evil · doc://a' }]);
  });

  it(`returns at most ${MAX_SUGGESTIONS} of a flood, and clips a huge name`, async () => {
    const flood = Array.from({ length: 10_000 }, (_, i) => ({ uri: `doc://${i}`, name: i === 0 ? 'n'.repeat(100_000) : `doc ${i}` }));
    const items = await composerSuggestions(offering(flood), '@', '');
    assert.equal(items.length, MAX_SUGGESTIONS);
    assert.ok(items[0]!.label.length <= 300);
  });

  it("lists a resource template as the mention up to its variable, then completes the variable through the server", async () => {
    const asked: CompletionQuery[] = [];
    const from = offering([], [{ uriTemplate: 'doc://guides/{slug}', name: 'a guide by slug' }, { uriTemplate: 'doc://{a}/{b}', name: 'two variables' }], async (_server, query) => {
      asked.push(query);
      return { values: ['install', 'intro', 'has space'], hasMore: false };
    });
    assert.deepEqual(await composerSuggestions(from, '@', 'guide'), [{ label: 'a guide by slug', insert: '@evil:doc://guides/', detail: 'evil · doc://guides/{slug}' }]);
    assert.deepEqual((await composerSuggestions(from, '@', 'evil:doc://guides/in')).map((item) => item.insert), ['@evil:doc://guides/install ', '@evil:doc://guides/intro ']);
    assert.deepEqual(asked, [{ ref: { type: 'ref/resource', uri: 'doc://guides/{slug}' }, argument: 'slug', value: 'in' }]);
  });

  it('offers nothing from a server whose completion fails', async () => {
    const from = offering([], [{ uriTemplate: 'doc://guides/{slug}', name: 'guide' }], async () => {
      throw new Error('MCP server "evil" failed');
    });
    assert.deepEqual(await composerSuggestions(from, '@', 'evil:doc://guides/x'), []);
  });
});
