import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { BaseAgent, type BaseAgentOptions } from '../../src/engine/base-agent';
import type { AgentEvent } from '../../src/engine/events';
import type { TurnResult } from '../../src/engine/turn';
import type { Provider } from '../../src/llm/types';
import { InternalSession } from '../../src/session/internal-session';
import { defineTool } from '../../src/tools/define-tool';
import { NodeWorkspace } from '../../src/tools/node-workspace';
import { PermissionGate } from '../../src/tools/permissions';
import type { Hooks } from '../../src/tools/hooks';
import type { Tool } from '../../src/tools/tool';
import type { UndoRecorder } from '../../src/tools/undo-recorder';
import type { Budget } from '../../src/vocabulary/budget';
import { ALLOW_ALL } from '../unit/tools/temp-workspace';

/** A fresh temporary workspace folder, removed by `dispose()`. */
export function tempWorkspace(): { root: string; workspace: NodeWorkspace; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), 'crow-test-'));
  return { root, workspace: new NodeWorkspace(root), dispose: () => rmSync(root, { recursive: true, force: true }) };
}

export interface TurnRun {
  events: AgentEvent[];
  result: TurnResult;
  session: InternalSession;
}

/** Runs one turn of `prompt` and collects everything it emitted. */
export async function runTurn(
  provider: Provider,
  tools: Tool[],
  prompt: string,
  options: Partial<BaseAgentOptions> & {
    signal?: AbortSignal;
    session?: InternalSession;
    permissions?: PermissionGate;
    undo?: UndoRecorder;
    budget?: Budget;
    hooks?: Hooks;
    onEvent?: (e: AgentEvent) => void;
  } = {},
): Promise<TurnRun> {
  const ws = options.workspace ? undefined : tempWorkspace();
  try {
    const agent = new BaseAgent({
      name: 'primary',
      provider,
      tools,
      systemPrompt: 'You are a test agent.',
      workspace: options.workspace ?? ws!.workspace,
      ...options,
    });
    const session = options.session ?? new InternalSession('primary');
    session.addUserMessage(prompt);
    const stream = agent.executeTurn(session, {
      signal: options.signal ?? new AbortController().signal,
      permissions: options.permissions ?? new PermissionGate({ policy: ALLOW_ALL }),
      ...(options.undo ? { undo: options.undo } : {}),
      ...(options.budget ? { budget: options.budget } : {}),
      ...(options.hooks ? { hooks: options.hooks } : {}),
    });
    const events: AgentEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      options.onEvent?.(event);
    }
    return { events, result: await stream.result, session };
  } finally {
    ws?.dispose();
  }
}

export function eventsOfType<T extends AgentEvent['type']>(events: AgentEvent[], type: T): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** Test tools with behaviour that is easy to assert on. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  kind: 'other',
  permission: 'none',
  parameters: z.object({ text: z.string() }),
  async execute({ text }) {
    return { output: `echo: ${text}` };
  },
});

export const throwingTool = defineTool({
  name: 'explode',
  description: 'Always throws.',
  kind: 'other',
  permission: 'none',
  parameters: z.object({}),
  async execute() {
    throw new Error('kaboom');
  },
});

export const noopTool = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  kind: 'other',
  permission: 'none',
  parameters: z.object({}),
  async execute() {
    return { output: '' };
  },
});
