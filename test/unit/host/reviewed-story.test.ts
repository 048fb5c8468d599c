/**
 * A reviewed (pair) run as the chat shows it, through the real flow: the
 * builder's summaries are its answers in prose, the reviewer's feedback is
 * said once, its approval carries its words, no task_complete card, and
 * the ending adds nothing the verdict did not say (issue 39, item 6).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TranscriptTranslator } from '../../../src/adapters/vscode/chat/transcript-translator';
import { HostSession } from '../../../src/host/host-session';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { SessionStore } from '../../../src/session/session-store';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import type { TranscriptEvent } from '../../../webview/chat/protocol';
import { TestCatalog } from '../../support/acp-catalog';
import { ALLOW_ALL } from '../tools/temp-workspace';

describe('a reviewed run in the chat transcript', () => {
  let root: string;
  let data: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crow-story-ws-'));
    data = mkdtempSync(join(tmpdir(), 'crow-story-data-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  it("ends with the builder's answers as prose and the reviewer's verdicts in its words", async () => {
    const provider = new ScriptedProvider([], 'm', 4);
    const catalog = new TestCatalog({ providers: { m: provider }, policy: ALLOW_ALL });
    provider.enqueue(
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Wrote the first line.' } }] },
      { text: 'Add a second line.' },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Added the second line.' } }] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Both lines read well.' } }] },
    );
    const host = await HostSession.create({ catalog: () => catalog, store: new SessionStore({ dataHome: data }), workspace: new NodeWorkspace(root), env: {} });
    try {
      await host.setAgent('pair');
      const translator = new TranscriptTranslator();
      const shown: TranscriptEvent[] = [];
      const stream = host.prompt('Write two lines');
      for await (const event of stream) shown.push(...translator.handle(event));
      await stream.result;
      const story = shown.flatMap((event): string[] => {
        if (event.type === 'text_delta') return [`${event.actor.role}: ${event.delta.trim()}`];
        if (event.type === 'verdict') return [`verdict ${event.verdict}: ${event.summary}`];
        if (event.type === 'review_start') return [`review ${event.round}`];
        if (event.type === 'prompt_end') return [`end ${event.status}: ${event.message}`];
        if (event.type === 'tool_start') return [`card ${event.tool}`];
        return [];
      });
      assert.deepEqual(story, [
        'primary: Wrote the first line.',
        'review 1',
        'reviewer: Add a second line.',
        'verdict feedback: ',
        'primary: Added the second line.',
        'review 2',
        'verdict approved: Both lines read well.',
        'end completed: ',
      ]);
    } finally {
      await host.close();
    }
  });
});
