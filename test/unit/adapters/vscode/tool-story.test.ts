import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/engine/events';
import type { ToolResult } from '../../../../src/tools/tool';
import { callOutcome, callWords, deniedBy } from '../../../../src/vocabulary/tool-story';
import { TranscriptTranslator } from '../../../../src/adapters/vscode/chat/transcript-translator';
import { applyPromptText } from '../../../../src/host/apply-code';
import * as l10n from '@vscode/l10n';
import { toolEnd } from '../../../../src/adapters/vscode/chat/transcript-translator';

function result(extra: Record<string, unknown>, fields: Partial<ToolResult> = {}): ToolResult {
  return { status: 'success', output: '', metadata: { filesModified: [], durationMs: 5, extra }, ...fields };
}

function start(callId: string, tool: string, args: Record<string, unknown>, summary: string, agent = 'builder'): AgentEvent {
  return { type: 'tool_call_start', agent, callId, tool, kind: 'other', arguments: args, summary, locations: [] } as AgentEvent;
}

/** What a card's head says: the call's words and its outcome, as a person reads them (issue 39, item 5). */
describe('what a tool call did, in plain words', () => {
  it('says what each built-in tool did, and with which target', () => {
    const said = (tool: string, args: Record<string, unknown>, summary: string): string => {
      const words = callWords(tool, args, summary);
      return `${words.done} ${words.target}`.trim();
    };
    assert.equal(said('read_file', { path: 'greeting.txt' }, 'greeting.txt'), 'Read greeting.txt');
    assert.equal(said('edit_file', { path: 'greeting.txt' }, 'greeting.txt'), 'Edited greeting.txt');
    assert.equal(said('bash', { command: 'npm test' }, 'npm test'), 'Ran npm test');
    assert.equal(said('grep', { pattern: 'foo' }, '/foo/'), 'Searched for "foo"');
    assert.equal(said('list_directory', { path: 'src' }, 'src'), 'Listed src/');
    assert.equal(said('list_directory', { path: '.' }, '.'), 'Listed the workspace');
    assert.equal(said('web_fetch', { url: 'https://www.example.com/docs?a=1' }, 'https://www.example.com/docs?a=1'), 'Fetched example.com');
    assert.equal(said('todo_write', { todos: [] }, '0 items'), 'Updated the plan');
    assert.equal(said('mcp_github_search', { q: 'x' }, 'x'), 'Used mcp_github_search x', 'an unknown tool keeps its name');
    assert.equal(callWords('bash', { command: 'npm test' }, 'npm test').doing, 'Running');
    assert.equal(callWords('edit_file', { path: 'a.ts' }, 'a.ts').file, true, 'a path the card may open');
    assert.equal(callWords('bash', { command: 'ls' }, 'ls').file, undefined);
  });

  it('says what a finished call found or changed', () => {
    assert.equal(callOutcome('edit_file', result({ linesAdded: 1, linesRemoved: 1 })), '+1 −1');
    assert.equal(callOutcome('write_file', result({ created: true, linesAdded: 3, linesRemoved: 0 })), 'new file +3 −0');
    assert.equal(callOutcome('grep', result({ matches: 7, files: 3 })), '3 files');
    assert.equal(callOutcome('grep', result({ matches: 0, files: 0 })), 'no matches');
    assert.equal(callOutcome('glob', result({ files: 1 })), '1 file');
    assert.equal(callOutcome('list_directory', result({ entries: 12 })), '12 entries');
    assert.equal(callOutcome('bash', result({ exitCode: 0 })), undefined);
    assert.equal(callOutcome('grep', result({ files: 3 }, { status: 'error' })), undefined, 'a failure has no outcome');
  });

  it("in VS Code the card's words follow the display language's bundle; without one (and in the CLI, which passes no t) they are English", () => {
    const cardOf = (): { head: string; outcome: string | undefined } => {
      const [shown] = new TranscriptTranslator().handle(start('g', 'grep', { pattern: 'foo' }, '/foo/'));
      assert.equal(shown?.type, 'tool_start');
      const words = shown?.type === 'tool_start' ? shown.words : undefined;
      const end = toolEnd('g', result({ files: 3 }), 1, 'grep');
      return { head: `${words?.done} ${words?.target}`, outcome: end.type === 'tool_end' ? end.outcome : undefined };
    };
    const english = cardOf();
    try {
      // Keys as l10n/bundle.l10n.json has them (scripts/l10n-export.ts reads tool-story.ts's t('…')).
      l10n.config({ contents: { 'Searched for': 'Gesucht nach', '{0} files': '{0} Dateien' } });
      assert.deepEqual(cardOf(), { head: 'Gesucht nach "foo"', outcome: '3 Dateien' });
      assert.equal(callWords('grep', { pattern: 'foo' }, '/foo/').done, 'Searched for', "the CLI's words (no t) stay English while VS Code's bundle is loaded");
      assert.equal(callOutcome('grep', result({ files: 3 })), '3 files');
    } finally {
      l10n.config({ contents: {} });
    }
    assert.deepEqual(english, { head: 'Searched for "foo"', outcome: '3 files' });
    assert.deepEqual(cardOf(), english);
  });

  it('tells who refused a call: the person or the settings', () => {
    assert.equal(deniedBy(result({ permission: 'denied' }, { metadata: { filesModified: [], durationMs: 0, extra: { permission: 'denied' }, approval: 'reject_once' } })), 'person');
    assert.equal(deniedBy(result({ permission: 'denied' })), 'settings');
    assert.equal(deniedBy(result({})), undefined);
  });
});

describe('the chat transcript tells the story', () => {
  it('shows no task_complete card: its summary is the answer, as prose, and the ending does not repeat it', () => {
    const translator = new TranscriptTranslator();
    const shown = [
      { type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: 'Greet' }] },
      { type: 'text_delta', agent: 'builder', delta: 'Changing it.' },
      start('tc', 'task_complete', { summary: 'greeting.txt now greets Crow.' }, 'greeting.txt now greets Crow.'),
      { type: 'tool_call_end', agent: 'builder', callId: 'tc', tool: 'task_complete', result: result({}, { output: 'greeting.txt now greets Crow.' }), durationMs: 1 },
      { type: 'task_complete', agent: 'builder', summary: 'greeting.txt now greets Crow.' },
      { type: 'run_complete', agent: 'build', status: 'completed', message: 'builder completed the task.' },
    ].flatMap((event) => translator.handle(event as AgentEvent));
    assert.deepEqual(shown.map((event) => event.type), ['text_delta', 'text_delta', 'prompt_end']);
    assert.deepEqual(shown[1], { type: 'text_delta', actor: { agent: 'builder', role: 'primary' }, delta: '\n\ngreeting.txt now greets Crow.' });
    assert.deepEqual(shown[2], { type: 'prompt_end', status: 'completed', message: '' });
  });

  it("in a reviewed run shows the builder's answer as prose and the reviewer's verdict once, with an ending that adds nothing", () => {
    const translator = new TranscriptTranslator();
    const shown = [
      { type: 'prompt_start', agent: 'pair', primary: 'builder', coagent: 'reviewer', content: [{ type: 'text', text: 'Greet' }] },
      { type: 'task_complete', agent: 'builder', summary: 'Done: greeting.txt greets Crow.' },
      { type: 'coagent_start', agent: 'reviewer', primary: 'builder', round: 1 },
      { type: 'task_complete', agent: 'reviewer', summary: 'Looks right.' },
      { type: 'coagent_end', agent: 'reviewer', primary: 'builder', round: 1, verdict: 'approved', summary: 'Looks right.' },
      { type: 'run_complete', agent: 'pair', status: 'completed', message: 'reviewer approved the work after 1 review round.' },
    ].flatMap((event) => translator.handle(event as AgentEvent));
    assert.deepEqual(shown.map((event) => event.type), ['text_delta', 'review_start', 'verdict', 'prompt_end']);
    assert.equal((shown[0] as { delta: string }).delta, 'Done: greeting.txt greets Crow.');
    assert.equal((shown[3] as { message: string }).message, '');
  });

  it('words a call and its end for the card: words, outcome, a denial', () => {
    const translator = new TranscriptTranslator();
    const [begun] = translator.handle(start('e1', 'edit_file', { path: 'greeting.txt' }, 'greeting.txt'));
    assert.deepEqual((begun as { words: unknown }).words, { doing: 'Editing', done: 'Edited', ask: 'edit', target: 'greeting.txt', file: true });
    const [ended] = translator.handle({ type: 'tool_call_end', agent: 'builder', callId: 'e1', tool: 'edit_file', result: result({ linesAdded: 1, linesRemoved: 1 }), durationMs: 3 } as AgentEvent);
    assert.equal((ended as { outcome: string }).outcome, '+1 −1');
    translator.handle(start('e2', 'edit_file', { path: 'greeting.txt' }, 'greeting.txt'));
    const refused = result({ permission: 'denied' }, { status: 'error', error: 'Permission denied by the user: Edit greeting.txt. Do not retry it; ask or try another way.' });
    refused.metadata.approval = 'reject_once';
    const [denied] = translator.handle({ type: 'tool_call_end', agent: 'builder', callId: 'e2', tool: 'edit_file', result: refused, durationMs: 3 } as AgentEvent);
    assert.equal((denied as { denied: string }).denied, 'person');
  });

  it("replays an Apply's prompt as a quiet line in the person's words, not as a message they typed", () => {
    const translator = new TranscriptTranslator({ replaying: true });
    const [line] = translator.handle({ type: 'prompt_start', agent: 'build', primary: 'builder', content: [{ type: 'text', text: applyPromptText('src/a.ts') }] } as AgentEvent);
    assert.deepEqual(line, { type: 'user_message', text: 'Applied a code block to src/a.ts', action: true });
  });
});
