import type { ResolvedConfig } from '../config/provider-config';
import { PromptRegistry, renderSystemPrompt } from '../config/prompts';
import { BaseAgent } from '../engine/base-agent';
import type { Provider } from '../llm/types';
import type { Tool } from '../tools/tool';
import type { Workspace } from '../tools/workspace';

export interface AgentSetup {
  name: string;
  provider: Provider;
  tools: readonly Tool[];
  workspace: Workspace;
  config: Pick<ResolvedConfig, 'maxIterations' | 'doomLoopThreshold' | 'maxOutputTokens' | 'thinkingBudget'>;
  prompts?: PromptRegistry;
}

/** A BaseAgent with the system prompt rendered from its template and the limits from config. */
export function buildAgent(setup: AgentSetup): BaseAgent {
  const { config } = setup;
  return new BaseAgent({
    name: setup.name,
    provider: setup.provider,
    tools: setup.tools,
    workspace: setup.workspace,
    systemPrompt: renderSystemPrompt(setup.prompts ?? new PromptRegistry(), {
      agentName: setup.name,
      workspaceRoot: setup.workspace.root,
      tools: setup.tools.map((t) => t.name),
    }),
    ...(config.maxIterations !== undefined ? { maxIterations: config.maxIterations } : {}),
    ...(config.doomLoopThreshold !== undefined ? { doomLoopThreshold: config.doomLoopThreshold } : {}),
    ...(config.maxOutputTokens !== undefined ? { maxOutputTokens: config.maxOutputTokens } : {}),
    ...(config.thinkingBudget !== undefined ? { thinkingBudget: config.thinkingBudget } : {}),
  });
}
