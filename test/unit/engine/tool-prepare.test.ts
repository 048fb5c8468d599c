import assert from 'node:assert/strict';
import { z } from 'zod';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { defineTool } from '../../../src/tools/define-tool';
import { bashTool } from '../../../src/tools/builtin/bash';
import { globTool } from '../../../src/tools/builtin/glob';
import { grepTool } from '../../../src/tools/builtin/grep';
import type { Tool } from '../../../src/tools/tool';
import { runTurn } from '../../support/engine';
import { tempWorkspace } from '../tools/temp-workspace';

describe('a tool readied while the model streams its call', () => {
  it('defineTool builds the parameters once, at prepare, and the call uses what was built', async () => {
    let built = 0;
    const echo = defineTool({
      name: 'echo',
      description: 'Says it back.',
      kind: 'other',
      permission: 'none',
      parameters: () => {
        built += 1;
        return z.object({ text: z.string() });
      },
      execute: async ({ text }) => ({ output: text }),
    });
    const ws = tempWorkspace();
    after(() => ws.remove());
    echo.prepare!(ws.workspace);
    assert.equal(built, 1);
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { text: 'done' }]);
    const run = await runTurn(provider, [echo], 'go');
    assert.equal(run.result.toolCalls[0]?.result.output, 'hi');
    assert.equal(built, 1);
  });

  it('the engine tells the tool as the call starts streaming, before the response ends and the call runs', async () => {
    const log: string[] = [];
    const base = defineTool({
      name: 'look',
      description: 'Looks.',
      kind: 'read',
      permission: 'none',
      parameters: z.object({}),
      execute: async () => {
        log.push('ran');
        return { output: 'seen' };
      },
    });
    const look: Tool = Object.assign(Object.create(base) as Tool, { prepare: () => void log.push('prepared') });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'look', arguments: {} }] }, { text: 'done' }]);
    await runTurn(provider, [look], 'go', { onEvent: (event) => event.type === 'usage' && log.push('response ended') });
    assert.deepEqual(log.slice(0, 3), ['prepared', 'response ended', 'ran']);
  });

  it('glob and grep ready the workspace\'s search while their call streams, and search in the same workspace', async () => {
    const ws = tempWorkspace({ 'src/app.ts': 'needle\n' });
    after(() => ws.remove());
    const log: string[] = [];
    const workspace = Object.assign(Object.create(ws.workspace) as typeof ws.workspace, {
      prepareSearch: () => void log.push('search readied'),
      findFiles: (options: Parameters<typeof ws.workspace.findFiles>[0]) => (log.push('files searched'), ws.workspace.findFiles(options)),
      grep: (options: Parameters<typeof ws.workspace.grep>[0]) => (log.push('contents searched'), ws.workspace.grep(options)),
    });
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'glob', arguments: { pattern: '**/*.ts' } }] },
      { toolCalls: [{ name: 'grep', arguments: { pattern: 'needle' } }] },
      { text: 'done' },
    ]);
    const run = await runTurn(provider, [globTool, grepTool], 'go', { workspace, onEvent: (event) => event.type === 'usage' && log.push('response ended') });
    assert.deepEqual(log.slice(0, 6), ['search readied', 'response ended', 'files searched', 'search readied', 'response ended', 'contents searched']);
    assert.match(run.result.toolCalls[0]!.result.output, /src\/app\.ts/);
  });

  it('bash readies the workspace\'s command start while its call streams, and runs in the same workspace', async () => {
    const ws = tempWorkspace();
    after(() => ws.remove());
    const log: string[] = [];
    const workspace = Object.assign(Object.create(ws.workspace) as typeof ws.workspace, {
      prepareCommand: () => void log.push('command readied'),
      exec: (command: string, options: Parameters<typeof ws.workspace.exec>[1]) => (log.push('command ran'), ws.workspace.exec(command, options)),
    });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'bash', arguments: { command: 'echo hello' } }] }, { text: 'done' }]);
    const run = await runTurn(provider, [bashTool], 'go', { workspace, onEvent: (event) => event.type === 'usage' && log.push('response ended') });
    assert.deepEqual(log.slice(0, 3), ['command readied', 'response ended', 'command ran']);
    assert.match(run.result.toolCalls[0]!.result.output, /hello/);
  });
});
