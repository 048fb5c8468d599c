/**
 * What the composer offers from servers that list hostile or unusable
 * things: names with terminal escapes and bidirectional overrides shown as
 * marks, URIs no mention can carry left out, and a flood cut to
 * MAX_SUGGESTIONS.
 */
import assert from 'node:assert/strict';
import { composerSuggestions, MAX_SUGGESTIONS, type OfferingSession } from '../../../src/host/composer-offers';
import type { McpServers } from '../../../src/mcp/mcp-servers';

function offering(resources: { uri: string; name: string; title?: string }[]): OfferingSession {
  const servers = {
    names: ['evil'],
    resources: async () => ({ resources, templates: [] }),
    promptCommands: async () => [],
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
});
