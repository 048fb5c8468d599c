import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ACPAgent } from '../../src/agents/acp-agent';
import type { ControlFlow, HandoffPrompt } from '../../src/config/control-flow';
import type { RunResult } from '../../src/agents/run-result';
import { PromptRegistry } from '../../src/config/prompts';
import { BaseAgent } from '../../src/engine/base-agent';
import type { AgentEvent } from '../../src/engine/events';
import type { Provider } from '../../src/llm/types';
import { ACPSession } from '../../src/session/acp-session';
import { PermissionGate } from '../../src/tools/permissions';
import { builtinTools } from '../../src/tools/registry';
import { NodeWorkspace } from '../../src/tools/node-workspace';
import type { Tool } from '../../src/tools/tool';
import { ALLOW_ALL } from '../unit/tools/temp-workspace';

const prompts = new PromptRegistry();
const all = builtinTools();

/** The built-in tools by name. */
export function tools(...names: string[]): Tool[] {
  return names.map((name) => {
    const tool = all.find((t) => t.name === name);
    if (!tool) throw new Error(`no built-in tool ${name}`);
    return tool;
  });
}

export interface FlowFixture {
  root: string;
  workspace: NodeWorkspace;
  session: ACPSession;
  dispose(): void;
}

/** A temp workspace holding `files`, and an ACP session on it that allows everything. */
export function flowFixture(files: Record<string, string> = {}): FlowFixture {
  const root = mkdtempSync(join(tmpdir(), 'crow-flow-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const workspace = new NodeWorkspace(root);
  const session = new ACPSession({ cwd: root, agentName: 'test', permissions: new PermissionGate({ policy: ALLOW_ALL }) });
  return { root, workspace, session, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

export function baseAgent(name: string, provider: Provider, workspace: NodeWorkspace, toolList: Tool[]): BaseAgent {
  return new BaseAgent({ name, provider, tools: toolList, systemPrompt: `You are ${name}.`, workspace });
}

export function composition(options: {
  flow: ControlFlow;
  primary: BaseAgent;
  coagent?: BaseAgent;
  handoff?: HandoffPrompt;
}): ACPAgent {
  return new ACPAgent({ name: 'crew', description: 'test composition', prompts, ...options });
}

export interface FlowRunRecord {
  events: AgentEvent[];
  result: RunResult;
}

/** Runs one prompt through the composition and collects what it emitted. */
export async function runFlow(
  agent: ACPAgent,
  session: ACPSession,
  prompt: string,
  options: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void } = {},
): Promise<FlowRunRecord> {
  const stream = agent.run(session, prompt, { signal: options.signal ?? new AbortController().signal });
  const events: AgentEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    options.onEvent?.(event);
  }
  return { events, result: await stream.result };
}

/** "agent:type" for the events that tell the story: who acted, and how the run went. */
export function storyOf(events: AgentEvent[]): string[] {
  return events.flatMap((event) => {
    switch (event.type) {
      case 'tool_call_start':
        return [`${event.agent}:${event.tool}`];
      case 'task_complete':
        return [`${event.agent} ENDS THE TASK`];
      case 'coagent_start':
        return [`${event.agent}:coagent_start`];
      case 'coagent_end':
        return [`${event.agent}:coagent_end(${event.verdict})`];
      case 'handoff':
        return [`${event.agent}→${event.to}:${event.purpose}`];
      case 'run_complete':
        return [`run:${event.status}`];
      default:
        return [];
    }
  });
}
