import assert from 'node:assert/strict';
import { builtinTools, ToolRegistry } from '../../../src/tools/registry';

describe('ToolRegistry', () => {
  const names = ['read_file', 'write_file', 'edit_file', 'list_directory', 'glob', 'grep', 'bash', 'web_fetch', 'web_search', 'todo_write', 'todo_read', 'task', 'request_approval', 'think', 'task_complete'];

  it('holds the built-in tools in order', () => {
    const registry = new ToolRegistry(builtinTools());
    assert.deepEqual(registry.names(), names);
    assert.deepEqual(registry.list().map((tool) => tool.name), names);
    assert.equal(registry.has('bash'), true);
    assert.equal(registry.get('bash')?.kind, 'execute');
    assert.equal(registry.get('nope'), undefined);
  });

  it('refuses a second tool with the same name', () => {
    const registry = new ToolRegistry(builtinTools());
    assert.throws(() => registry.register(builtinTools()[0]!), /"read_file" is already registered/);
  });

  it('picks a subset into a new registry', () => {
    const registry = new ToolRegistry(builtinTools());
    const picked = registry.pick(['think', 'read_file', 'think']);
    assert.deepEqual(picked.names(), ['think', 'read_file']);
    assert.equal(registry.names().length, names.length, 'the original is unchanged');
  });

  it('names unknown tools with a suggestion', () => {
    const registry = new ToolRegistry(builtinTools());
    assert.throws(
      () => registry.pick(['read_file', 'reed_file', 'teleport']),
      (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, /Unknown tool "reed_file" \(did you mean "read_file"\?\), "teleport"\./);
        assert.match(err.message, /Known tools: read_file, write_file/);
        return true;
      },
    );
  });
});
