import assert from 'node:assert/strict';
import { BUILTIN_TOOL_NAMES } from '../../../src/vocabulary/tool-names';
import { builtinTools } from '../../../src/tools/registry';

describe('built-in tool names', () => {
  it('are the names of the tools the registry builds, so definitions are checked against what exists', () => {
    assert.deepEqual([...BUILTIN_TOOL_NAMES].sort(), builtinTools().map((tool) => tool.name).sort());
  });
});
