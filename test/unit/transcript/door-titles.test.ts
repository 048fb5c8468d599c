/**
 * One event stream, three doors, the same titles: each door's title of a
 * tool call is the transcript model's, in the model's words (the chat's
 * card head, ACP's tool_call title, the CLI's ● and ✓ lines).
 */
import assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { ToolCallIds, UpdateTranslator } from '../../../src/adapters/acp/update-translator';
import { UpdateSink } from '../../../src/adapters/acp/update-sink';
import { RunRenderer } from '../../../src/adapters/cli/run-renderer';
import { styleFor } from '../../../src/adapters/cli/terminal-style';
import { TranscriptTranslator } from '../../../src/adapters/vscode/chat/transcript-translator';
import type { AgentEvent } from '../../../src/engine/events';
import type { ToolResult } from '../../../src/tools/tool';
import { TranscriptModel } from '../../../src/transcript/transcript-model';
import { callTitle, endedTitle, helperHeadline, helperStateWords, helperStatusWords } from '../../../src/transcript/words';
import { helperLine } from '../../../src/adapters/cli/call-lines';

const done = (output: string, extra: Record<string, unknown> = {}): ToolResult => ({ status: 'success', output, metadata: { filesModified: [], durationMs: 2, extra } });
const refused: ToolResult = { status: 'error', output: '', error: 'Permission denied: the user rejected this call.', metadata: { filesModified: [], durationMs: 1, extra: { permission: 'denied' }, approval: 'reject_once' } };
const call = (callId: string, tool: string, args: Record<string, unknown>, summary: string, result: ToolResult): AgentEvent[] => [
  { type: 'tool_call_start', agent: 'builder', callId, tool, kind: tool === 'bash' ? 'execute' : tool === 'edit_file' ? 'edit' : 'read', arguments: args, summary, locations: [] },
  { type: 'tool_call_end', agent: 'builder', callId, tool, result, durationMs: 2 },
];

const STREAM: AgentEvent[] = [
  { type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'Fix the greeting' }] },
  ...call('c1', 'read_file', { path: 'greet.ts' }, 'greet.ts', done('const a = 1;')),
  ...call('c2', 'grep', { pattern: 'hello' }, 'hello', done('greet.ts:1', { files: 1 })),
  ...call('c3', 'edit_file', { path: 'greet.ts' }, 'greet.ts', done('Edited', { linesAdded: 1, linesRemoved: 1 })),
  ...call('c4', 'bash', { command: 'npm test' }, 'npm test', done('ok\n[exit code 0]', { exitCode: 0 })),
  ...call('c5', 'web_fetch', { url: 'https://www.example.com/page' }, 'https://www.example.com/page', done('<p>')),
  ...call('c6', 'write_file', { path: 'a.txt' }, 'a.txt', refused),
  { type: 'run_complete', agent: 'build', status: 'completed', message: 'Fixed.' },
];

/** The model's titles: as each call runs, and once it ended. */
function modelTitles(): { running: string[]; ended: string[] } {
  const model = new TranscriptModel();
  const entries = STREAM.flatMap((event) => model.handle(event));
  return {
    running: entries.flatMap((entry) => (entry.type === 'tool_start' ? [entry.title] : [])),
    ended: entries.flatMap((entry) => (entry.type === 'tool_end' ? [entry.title] : [])),
  };
}

describe('one event stream gives the same tool call titles in every door', () => {
  const expected = modelTitles();

  it('the model titles calls in a person\'s words', () => {
    assert.deepEqual(expected.running, ['Reading greet.ts', 'Searching for "hello"', 'Editing greet.ts', 'Running npm test', 'Fetching example.com', 'Writing a.txt']);
    assert.deepEqual(expected.ended, ['Read greet.ts', 'Searched for "hello"', 'Edited greet.ts', 'Ran npm test', 'Fetched example.com', 'Not allowed: write a.txt']);
  });

  it('the VS Code chat: each card\'s head reads the model\'s title', () => {
    const translator = new TranscriptTranslator();
    const shown = STREAM.flatMap((event) => translator.handle(event));
    const heads = shown.flatMap((event) => (event.type === 'tool_start' && event.words ? [event.words] : []));
    const ends = shown.flatMap((event) => (event.type === 'tool_end' ? [event] : []));
    assert.deepEqual(heads.map((words) => callTitle(words, false)), expected.running);
    assert.deepEqual(heads.map((words, i) => endedTitle(words, ends[i]!.status, ends[i]!.denied !== undefined)), expected.ended);
  });

  it('crow acp: each tool_call is titled as the model says, and its final update as it ended', async () => {
    const updates: SessionUpdate[] = [];
    const sink = new UpdateSink(async (update) => void updates.push(update), (err) => assert.fail(String(err)));
    const translator = new UpdateTranslator({ cwd: '/work', sink, toolCallIds: new ToolCallIds(), contextWindow: () => undefined, readText: async () => '', notices: true, sessionCost: () => undefined });
    for (const event of STREAM) translator.handle(event);
    translator.flush();
    await sink.drained();
    assert.deepEqual(updates.flatMap((update) => (update.sessionUpdate === 'tool_call' ? [update.title] : [])), expected.running);
    const finals = updates.flatMap((update) => (update.sessionUpdate === 'tool_call_update' && update.status !== 'in_progress' ? [update.title] : []));
    assert.deepEqual(finals, expected.ended);
  });

  it('crow run: each call\'s ● line and ✓ line read the model\'s titles', () => {
    let err = '';
    const plain = styleFor({ isTTY: false } as NodeJS.WriteStream, {});
    const renderer = new RunRenderer({ out: { write: () => true }, err: { write: (text: string) => (err += text) }, outStyle: plain, errStyle: plain }, { replaying: true });
    for (const event of STREAM) renderer.render(event);
    const lines = err.split('\n');
    assert.deepEqual(lines.filter((line) => line.startsWith('● ')).map((line) => line.slice(2)), expected.running);
    const ended = lines.filter((line) => /^ {2}[✓⊘✗] /.test(line)).map((line) => line.slice(4));
    expected.ended.forEach((title, i) => assert.ok(ended[i]?.startsWith(`${title} `), `${ended[i]} starts with ${title}`));
  });
});

describe("a helper's words are the model's in every door", () => {
  const plain = styleFor({ isTTY: false } as NodeJS.WriteStream, {});
  const entry = (state: 'started' | 'progress' | 'ended', text: string, status?: string) =>
    ({ type: 'subagent', parent: { agent: 'builder', role: 'primary' }, callId: 't1', subagent: 'explorer', state, text, ...(status ? { status } : {}) }) as const;

  it('the CLI says the helper is running, what it does, and how it ended', () => {
    assert.equal(helperLine(entry('started', 'Find the config loader'), plain), '→ Running explorer… Find the config loader');
    assert.equal(helperLine(entry('progress', 'Read src/config.ts'), plain), '  explorer: Read src/config.ts');
    assert.equal(helperLine(entry('ended', 'It is in src/config.ts.', 'completed'), plain), '← explorer completed: It is in src/config.ts.');
    assert.equal(helperLine(entry('ended', 'Stopped.', 'error'), plain), '← explorer failed: Stopped.');
  });

  it('the chat and ACP take the same headline and status words', () => {
    assert.equal(helperHeadline('explorer', 'started'), 'Running explorer…');
    assert.equal(helperHeadline('explorer', 'ended', 'cancelled'), 'explorer cancelled');
    assert.deepEqual((['started', 'progress', 'ended'] as const).map((state) => helperStateWords(state)), ['started', 'working', 'finished']);
    assert.equal(helperStatusWords('error'), 'failed');
  });
});
