/**
 * Stored sessions for the trace viewer's bench, recorded as Crow records
 * them: an ACPSession attached to a SessionStore, its TraceRecorder writing
 * each span's start record and ended record to trace.jsonl, the attributes
 * made by the engine's own gen_ai helpers (system prompt and last message
 * on every model call, tool arguments and outputs, diffs, usage and cost),
 * clipped where the engine clips them. Prompts of a long working session:
 * the builder's model calls and tools, now and then a subagent through the
 * task tool, a failing command, then the handoff to the reviewer and its
 * verdict. The clock is simulated (calls take seconds, as they do), and the
 * random choices are seeded, so a size always gives the same session.
 */
import { statSync } from 'node:fs';
import { ACPSession } from '../src/session/acp-session';
import { SessionStore } from '../src/session/session-store';
import { mulberry32 } from '../src/eval/eval-stats';
import { llmPromptAttributes, llmRequestAttributes, llmResponseAttributes, toolRequestAttributes, toolResultAttributes } from '../src/telemetry/gen-ai';
import type { AssistantResponse, LlmRequest, Message, ModelPricing } from '../src/llm/types';
import type { Span } from '../src/telemetry/span';

const PRICING: ModelPricing = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const MODEL = 'claude-sonnet-4-5';
const WORDS = 'const let return if else function await async import export from type interface string number value result error path file read write test expect assert span trace agent model tool call session store record'.split(' ');

/** A stored session: its id, how many spans it holds, and the size of its trace.jsonl. */
export interface TraceSession {
  id: string;
  spans: number;
  bytes: number;
}

/** Writes a session of about `spans` spans (a few more, to finish the last call) under `dataHome` (crow's data folder, XDG_DATA_HOME/crow-agent). */
export function storeTraceSession(dataHome: string, spans: number, cwd: string): TraceSession {
  const store = new SessionStore({ dataHome });
  const realNow = Date.now;
  const clock = { now: Date.UTC(2026, 0, 5, 9) };
  Date.now = () => clock.now;
  try {
    const session = new ACPSession({ cwd, agentName: 'build' });
    const handle = store.attach(session);
    const writer = new SessionWriter(session, clock, spans);
    for (let prompt = 0; writer.left() > 0; prompt++) writer.prompt(prompt);
    handle.close();
    return { id: session.id, spans: writer.count, bytes: statSync(store.traceFile(session.id)).size };
  } finally {
    Date.now = realNow;
  }
}

class SessionWriter {
  private written = 0;
  private readonly random: () => number;
  private readonly system: string;

  constructor(
    private readonly session: ACPSession,
    private readonly clock: { now: number },
    private readonly total: number,
  ) {
    this.random = mulberry32(total);
    this.system = `You are builder, a coding agent working in a software project on the user's machine.\n\nWorkspace root: ${session.cwd}\n${this.text(2_600)}`;
  }

  get count(): number {
    return this.written;
  }

  left(): number {
    return this.total - this.written;
  }

  /** One prompt: the builder's loop, the handoff and the review; stops adding work once the size is reached. */
  prompt(index: number): void {
    const task = `Task ${index}: ${this.text(80 + this.int(300))}`;
    const prompt = this.open(() => this.session.trace.startTrace('prompt', 'prompt build', { agent: 'build', attributes: { 'crow.session.id': this.session.id, 'crow.acp_agent': 'build', 'crow.prompt': task.slice(0, 500) } }));
    const builder = this.open(() => prompt.child('agent_turn', 'invoke_agent builder', { agent: 'builder', role: 'primary', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'builder' } }));
    const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: task }] }];
    const steps = 40 + this.int(120);
    for (let step = 0; step < steps && this.left() > 6; step++) this.step(builder, 'builder', history, step % 23 === 22 && this.left() > 20);
    builder.set({ 'crow.turn.stop_reason': 'task_complete', 'crow.turn.tool_calls': steps });
    this.close(builder, 'ok');
    if (this.left() > 3) {
      const handoff = this.open(() => prompt.child('handoff', 'handoff builder → reviewer', { agent: 'builder', attributes: { 'handoff.from': 'builder', 'handoff.to': 'reviewer', 'handoff.prompt': this.text(600), 'crow.handoff.purpose': 'review' } }));
      this.close(handoff, 'ok');
      const reviewer = this.open(() => prompt.child('agent_turn', 'invoke_agent reviewer', { agent: 'reviewer', role: 'coagent', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'reviewer' } }));
      for (let step = 0; step < 3 && this.left() > 2; step++) this.step(reviewer, 'reviewer', history, false);
      const approved = index % 3 !== 1;
      reviewer.set({ 'crow.review.verdict': approved ? 'approved' : 'feedback', 'crow.review.feedback': this.text(300) });
      this.close(reviewer, 'ok');
    }
    prompt.set({ 'crow.run.status': 'completed', 'crow.run.turns': 2, 'gen_ai.usage.input_tokens': 120_000 + this.int(900_000), 'gen_ai.usage.output_tokens': 9_000 + this.int(40_000) });
    this.close(prompt, 'ok');
  }

  /** A model call and the tools it asked for; `delegate` makes one of them a subagent's run. */
  private step(turn: Span, agent: string, history: Message[], delegate: boolean): void {
    const calls = delegate ? ['task'] : this.pickTools();
    this.modelCall(turn, agent, history, calls);
    const results = calls.map((tool) => (tool === 'task' ? this.subagent(turn, agent) : this.tool(turn, agent, tool)));
    history.push({ role: 'tool_results', results });
    if (history.length > 12) history.splice(1, 2);
  }

  private modelCall(turn: Span, agent: string, history: Message[], tools: string[]): void {
    const request: LlmRequest = { system: this.system, messages: history, tools: [] };
    const span = this.open(() => turn.child('llm_call', `chat ${MODEL}`, { agent, attributes: { ...llmRequestAttributes('anthropic', MODEL), ...llmPromptAttributes(request) } }));
    const ttft = 400 + this.int(2_000);
    this.clock.now += ttft + this.int(9_000);
    const said = this.random() < 0.6 ? this.text(100 + this.int(900)) : '';
    const response: AssistantResponse = {
      content: [...(said ? [{ type: 'text' as const, text: said }] : []), ...tools.map((name, i) => ({ type: 'tool_call' as const, id: `call-${this.written}-${i}`, name, arguments: this.argumentsFor(name) }))],
      stopReason: 'tool_use',
      responseModel: `${MODEL}-20250929`,
      finishReasons: ['tool_use'],
      usage: { input: 200 + this.int(3_000), output: 50 + this.int(1_500), cacheRead: 20_000 + this.int(80_000), cacheWrite: this.int(4_000), reasoning: 0 },
      timeToFirstTokenMs: ttft,
    };
    history.push({ role: 'assistant', content: response.content });
    span.set(llmResponseAttributes(response, PRICING));
    this.close(span, 'ok');
  }

  private tool(turn: Span, agent: string, name: string): { callId: string; content: string; isError: boolean } {
    const callId = `toolu_${this.written.toString(36)}${this.int(1e9).toString(36)}`;
    const span = this.open(() => turn.child('tool', `execute_tool ${name}`, { agent, attributes: toolRequestAttributes(name, callId, this.argumentsFor(name)) }));
    const failed = name === 'bash' && this.random() < 0.15;
    const took = name === 'bash' ? 500 + this.int(30_000) : 5 + this.int(200);
    this.clock.now += took;
    const output = failed ? `npm ERR! Test failed.\n${this.text(200 + this.int(1_500))}` : this.text(this.outputLength(name));
    const edits = name === 'edit_file' || name === 'write_file';
    span.set(
      toolResultAttributes({
        status: failed ? 'error' : 'success',
        output,
        ...(failed ? { error: 'Command exited with code 1' } : {}),
        metadata: { durationMs: took, filesModified: edits ? [`src/file-${this.int(400)}.ts`] : [], ...(edits ? { diff: this.text(300 + this.int(2_500)) } : {}) },
      }),
    );
    this.close(span, failed ? 'error' : 'ok', failed ? 'Command exited with code 1' : undefined);
    return { callId, content: output, isError: failed };
  }

  /** The task tool, its subagent and the subagent's own turn of a few calls. */
  private subagent(turn: Span, agent: string): { callId: string; content: string; isError: boolean } {
    const callId = `toolu_task_${this.written}`;
    const task = this.open(() => turn.child('tool', 'execute_tool task', { agent, attributes: toolRequestAttributes('task', callId, JSON.stringify({ description: this.text(200) })) }));
    const run = this.open(() => task.child('subagent', 'invoke_subagent explorer', { agent: 'explorer', attributes: { 'crow.acp_agent': 'explorer', 'crow.prompt': this.text(300) } }));
    const inner = this.open(() => run.child('agent_turn', 'invoke_agent explorer', { agent: 'explorer', role: 'primary', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'explorer' } }));
    const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: this.text(300) }] }];
    for (let step = 0; step < 4 && this.left() > 6; step++) this.step(inner, 'explorer', history, false);
    this.close(inner, 'ok');
    run.set({ 'crow.run.status': 'completed' });
    this.close(run, 'ok');
    const summary = this.text(800);
    task.set(toolResultAttributes({ status: 'success', output: summary, metadata: { durationMs: 30_000, filesModified: [] } }));
    this.close(task, 'ok');
    return { callId, content: summary, isError: false };
  }

  private pickTools(): string[] {
    const tools = ['read_file', 'read_file', 'grep', 'bash', 'edit_file', 'list_directory', 'glob', 'write_file'];
    return Array.from({ length: 1 + (this.random() < 0.3 ? 1 : 0) }, () => tools[this.int(tools.length)]!);
  }

  private argumentsFor(tool: string): string {
    const path = `src/${WORDS[this.int(WORDS.length)]}/file-${this.int(400)}.ts`;
    if (tool === 'bash') return JSON.stringify({ command: `npm test -- ${path}` });
    if (tool === 'grep') return JSON.stringify({ pattern: WORDS[this.int(WORDS.length)], path: 'src' });
    if (tool === 'edit_file') return JSON.stringify({ path, old_text: this.text(120), new_text: this.text(160) });
    if (tool === 'write_file') return JSON.stringify({ path, content: this.text(400 + this.int(3_000)) });
    return JSON.stringify({ path });
  }

  /** Outputs as tools give them: files and logs long (the engine keeps 4,000 characters), listings short. */
  private outputLength(tool: string): number {
    if (tool === 'read_file' || tool === 'bash') return 300 + this.int(7_000);
    if (tool === 'grep' || tool === 'glob' || tool === 'list_directory') return 80 + this.int(1_500);
    return 40 + this.int(200);
  }

  private open(start: () => Span): Span {
    this.written++;
    this.clock.now += 2 + this.int(40);
    return start();
  }

  private close(span: Span, status: 'ok' | 'error', message?: string): void {
    this.clock.now += 1 + this.int(20);
    span.end(status, message);
  }

  private int(below: number): number {
    return Math.floor(this.random() * below);
  }

  /** Code-like text of about `length` characters, with the newlines and quotes JSON must escape. */
  private text(length: number): string {
    const lines: string[] = [];
    let size = 0;
    while (size < length) {
      const words = Array.from({ length: 3 + this.int(9) }, () => WORDS[this.int(WORDS.length)]);
      const line = `${'  '.repeat(this.int(4))}${words.join(' ')}${this.random() < 0.2 ? ' "quoted"' : ''};`;
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join('\n').slice(0, length);
  }
}
