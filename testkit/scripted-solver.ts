/**
 * A scripted model for evaluation tasks, played by the fake LLM server: it
 * reads the conversation of each request (Anthropic Messages format) and
 * answers as a plain coding agent or reviewer would, with real tool calls
 * that the engine runs for real. It keeps no state of its own, so runs in
 * parallel cannot mix: everything it decides comes from the request.
 *
 * As the primary it reads the files the fix touches, writes them (the
 * correct fix, the task's obvious wrong fix, or nothing when giving up),
 * runs the task's visible check and calls task_complete. As a reviewer with
 * a shell it runs the visible check and approves only when it passes; a
 * reviewer without one approves what it is told.
 */
import type { Responder, ScriptedBlock, ScriptedReply } from './fake-llm-server';

/** How the solver behaves on a task: fix it, fix it wrongly on the first attempt only, always wrongly, or give up. */
export type SolverMode = 'correct' | 'wrong-first' | 'wrong' | 'give-up';

/** What the solver knows of one task; plain data, built by whoever runs the evaluation. */
export interface SolverTask {
  /** The prompt as the user types it: how the solver recognises the task. */
  prompt: string;
  /** Files the correct fix writes, by workspace-relative path. */
  solution: Record<string, string>;
  /** Files the obvious wrong fix writes; absent when the task has none (the correct fix is used). */
  wrong?: Record<string, string>;
  /** Files to read before changing anything (default: the solution's). */
  read?: string[];
  /** The check a developer would run in the workspace, e.g. "node test.js". */
  visibleCheck?: string;
}

export interface SolverOptions {
  tasks: readonly SolverTask[];
  /** The mode of a task (by its prompt); default 'correct'. */
  modeOf?: (task: SolverTask) => SolverMode;
  /** Tokens reported per request, so cost and budgets can be measured; defaults: input from the request's size. */
  usage?: { outputPerCall?: number };
}

/** The Anthropic-format responder; give it to FakeLlmServer.respondWith('anthropic', …). */
export function scriptedSolver(options: SolverOptions): Responder {
  return (body) => {
    const messages = (body.messages ?? []) as Message[];
    const firstText = textOf(messages[0]);
    const task = recognise(options.tasks, firstText);
    if (!task) return { blocks: [{ type: 'text', text: `I do not know this task: ${firstText.slice(0, 80)}` }] };
    const reply = REVIEW_OPENING.test(firstText) ? review(task, messages, toolNames(body)) : build(task, messages, options.modeOf?.(task) ?? 'correct');
    return { ...reply, usage: usageOf(body, reply, options) };
  };
}

interface Message {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string | { type: string; text?: string }[] };

/** How a reviewer's conversation opens: the primary's report (see the flow's review handoff). */
const REVIEW_OPENING = /reports on the task below/;
/** How feedback reaches the primary. */
const FEEDBACK = /sent it back/;

function build(task: SolverTask, messages: Message[], mode: SolverMode): ScriptedResponse {
  const attempt = messages.filter((message) => message.role === 'user' && FEEDBACK.test(textOf(message))).length;
  const done = callsSinceLastText(messages);
  const reads = task.read ?? Object.keys(task.solution);
  if (!done.includes('read_file') && reads.length > 0) {
    return calls('Let me read the code first.', reads.map((path) => ({ name: 'read_file', input: { path } })));
  }
  if (!done.includes('write_file')) {
    if (mode === 'give-up') return { blocks: [{ type: 'text', text: 'I could not work out a fix for this; I am leaving the code as it was.' }] };
    const wrong = task.wrong && (mode === 'wrong' || (mode === 'wrong-first' && attempt === 0));
    const files = wrong ? task.wrong! : task.solution;
    return calls(wrong ? 'The fix looks simple.' : 'Here is the fix.', Object.entries(files).map(([path, content]) => ({ name: 'write_file', input: { path, content } })));
  }
  if (task.visibleCheck && !done.includes('bash')) return calls('Running the checks.', [{ name: 'bash', input: { command: task.visibleCheck } }]);
  return calls('Done.', [{ name: 'task_complete', input: { summary: `Changed ${Object.keys(task.solution).join(', ')}.` } }]);
}

function review(task: SolverTask, messages: Message[], tools: Set<string>): ScriptedResponse {
  const done = callsSinceLastText(messages);
  if (task.visibleCheck && tools.has('bash') && !done.includes('bash')) {
    return calls('I will run the checks myself.', [{ name: 'bash', input: { command: task.visibleCheck } }]);
  }
  const result = lastToolResult(messages);
  const exit = /\[exit code (\d+)\]\s*$/.exec(result ?? '');
  if (result !== undefined && exit && exit[1] !== '0') {
    return { blocks: [{ type: 'text', text: `Changes requested: \`${task.visibleCheck}\` fails:\n\n${result.slice(-600)}` }] };
  }
  return calls('Approved.', [{ name: 'task_complete', input: { summary: 'Approved: the checks pass.' } }]);
}

type ScriptedResponse = Extract<ScriptedReply, { blocks: ScriptedBlock[] }>;

function calls(text: string, tools: { name: string; input: Record<string, unknown> }[]): ScriptedResponse {
  return { blocks: [{ type: 'text', text }, ...tools.map((tool) => ({ type: 'tool_call' as const, name: tool.name, arguments: tool.input }))] };
}

/** The task whose prompt the opening message carries (the longest match, should one prompt contain another). */
function recognise(tasks: readonly SolverTask[], text: string): SolverTask | undefined {
  return tasks.filter((task) => text.includes(task.prompt.trim())).sort((a, b) => b.prompt.length - a.prompt.length)[0];
}

/** Tool names the assistant called since the last user message that carried text (the prompt, a report or feedback). */
function callsSinceLastText(messages: Message[]): string[] {
  let start = 0;
  messages.forEach((message, i) => {
    if (message.role === 'user' && textOf(message) !== '') start = i;
  });
  return messages.slice(start).flatMap((message) =>
    message.role === 'assistant' && Array.isArray(message.content)
      ? message.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : []))
      : [],
  );
}

function lastToolResult(messages: Message[]): string | undefined {
  for (const message of [...messages].reverse()) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    const result = [...message.content].reverse().find((block) => block.type === 'tool_result');
    if (result && result.type === 'tool_result') {
      return typeof result.content === 'string' ? result.content : result.content.map((part) => part.text ?? '').join('');
    }
  }
  return undefined;
}

/** The text a user message carries, tool results left out. */
function textOf(message: Message | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

function toolNames(body: Record<string, unknown>): Set<string> {
  return new Set(((body.tools ?? []) as { name: string }[]).map((tool) => tool.name));
}

/** Input tokens as a real model would count them, roughly (4 characters a token); output from what the reply says. */
function usageOf(body: Record<string, unknown>, reply: ScriptedResponse, options: SolverOptions): { input: number; output: number } {
  const input = Math.ceil(JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools }).length / 4);
  const output = options.usage?.outputPerCall ?? Math.ceil(JSON.stringify(reply.blocks).length / 4);
  return { input, output };
}
