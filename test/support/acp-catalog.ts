import { ACPAgent } from '../../src/agents/acp-agent';
import { type ControlFlow, PRESETS } from '../../src/config/control-flow';
import type { ModelChoice, WorkspaceCatalog } from '../../src/host/catalog';
import type { CommandCatalog } from '../../src/host/commands';
import { PromptRegistry } from '../../src/config/prompts';
import { BaseAgent } from '../../src/engine/base-agent';
import type { Provider } from '../../src/llm/types';
import type { SessionRole } from '../../src/session/acp-session';
import { DEFAULT_POLICY, type PermissionPolicy } from '../../src/vocabulary/permission-types';
import { builtinTools } from '../../src/tools/registry';
import type { SandboxSetup } from '../../src/tools/sandbox-setup';
import type { Workspace } from '../../src/tools/workspace';

const prompts = new PromptRegistry();

interface TestMode {
  description: string;
  flow: ControlFlow;
  coagent?: string;
}

/** build (one turn), loop (until task_complete) and pair (reviewed by "reviewer"), each with "builder" as primary. */
const MODES: Record<string, TestMode> = {
  build: { description: 'one turn', flow: { kind: 'hitl' } },
  loop: { description: 'until task_complete', flow: { kind: 'loop', maxTurns: 3 } },
  pair: { description: 'reviewed', flow: { ...PRESETS.smart, maxRounds: 2 }, coagent: 'reviewer' },
};

export interface TestCatalogOptions {
  /** Providers by model name: what the model selects offer. */
  providers: Record<string, Provider>;
  /** Each role's model when none is chosen; default: the first provider for both. */
  defaults?: Partial<Record<SessionRole, string>>;
  policy?: PermissionPolicy;
  missingKeys?: string[];
  /** Context window of every model; default 1,000 tokens. */
  contextWindow?: number;
  /** How sessions contain their commands; default: no sandbox. */
  sandbox?: SandboxSetup;
}

/** A real catalog for tests: compositions of BaseAgents with the built-in tools on the given providers. */
export class TestCatalog implements WorkspaceCatalog {
  /** The slash commands sessions get; a test may replace them. */
  commandCatalog: CommandCatalog = testCommands();

  /** Every build, in order: which agent with which chosen models. */
  readonly builds: { agent: string; models: ModelChoice }[] = [];

  constructor(private readonly options: TestCatalogOptions) {}

  list() {
    return Object.entries(MODES).map(([name, mode]) => ({ name, description: mode.description }));
  }

  defaultAgent(): string {
    return 'build';
  }

  models(agent: string) {
    const options = Object.keys(this.options.providers);
    return this.roles(agent).map((role) => ({ role, current: this.defaultModel(role), options }));
  }

  build(agent: string, workspace: Workspace, models: ModelChoice): ACPAgent {
    this.builds.push({ agent, models });
    const mode = MODES[agent];
    if (!mode) throw new Error(`no test mode ${agent}`);
    const base = (name: string, role: SessionRole): BaseAgent => {
      const provider = this.options.providers[models[role] ?? this.defaultModel(role)];
      if (!provider) throw new Error(`no provider for ${role}`);
      return new BaseAgent({ name, provider, tools: builtinTools(), systemPrompt: `You are ${name}.`, workspace });
    };
    return new ACPAgent({
      name: agent,
      description: mode.description,
      flow: mode.flow,
      prompts,
      primary: base('builder', 'primary'),
      ...(mode.coagent ? { coagent: base(mode.coagent, 'coagent') } : {}),
    });
  }

  missingKeys(): string[] {
    return this.options.missingKeys ?? [];
  }

  prompts(): PromptRegistry {
    return prompts;
  }

  commands(): CommandCatalog {
    return this.commandCatalog;
  }

  contextWindow(): number {
    return this.options.contextWindow ?? 1_000;
  }

  permissionPolicy(): PermissionPolicy {
    return this.options.policy ?? DEFAULT_POLICY;
  }

  sandbox(): SandboxSetup | undefined {
    return this.options.sandbox;
  }

  private roles(agent: string): SessionRole[] {
    return MODES[agent]?.coagent ? ['primary', 'coagent'] : ['primary'];
  }

  private defaultModel(role: SessionRole): string {
    return this.options.defaults?.[role] ?? Object.keys(this.options.providers)[0]!;
  }
}

/** Slash commands for tests: each expands to its fixed prompt, optionally run by an agent. */
export function testCommands(commands: Record<string, { prompt: string; agent?: string }> = {}): CommandCatalog {
  const entries = Object.keys(commands).map((name) => ({ name, description: `the ${name} command` }));
  return {
    list: () => entries,
    get: (name) => entries.find((entry) => entry.name === name),
    expand: (line: string) => {
      const command = commands[/^\s*\/(\S+)/.exec(line)![1]!]!;
      return { kind: 'prompt' as const, prompt: command.prompt, ...(command.agent ? { agent: command.agent } : {}) };
    },
  };
}
