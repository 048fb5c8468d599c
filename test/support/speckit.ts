import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ACPAgent } from '../../src/agents/acp-agent';
import { assembleAgent } from '../../src/agents/assemble';
import type { RunResult } from '../../src/agents/run-result';
import { SubagentRunner } from '../../src/agents/subagent-runner';
import { AgentRegistry } from '../../src/config/agent-registry';
import { PromptRegistry } from '../../src/config/prompts';
import { resolveSettings } from '../../src/config/provider-config';
import type { Settings } from '../../src/config/settings';
import type { AgentEvent } from '../../src/engine/events';
import { ACPSession } from '../../src/session/acp-session';
import { SessionStore } from '../../src/session/session-store';
import type { FakeLlmServer, ScriptedReply } from '../../testkit/fake-llm-server';
import { speckitCommands } from '../../src/speckit/speckit-commands';
import { NodeWorkspace } from '../../src/tools/node-workspace';
import { PermissionGate } from '../../src/tools/permissions';
import { policyFromConfig } from '../../src/config/permission-config';
import { builtinTools } from '../../src/tools/registry';

export const FIXTURES = join(__dirname, '../fixtures/speckit');

export interface SpeckitProject {
  root: string;
  data: string;
  env: NodeJS.ProcessEnv;
  settings: Settings;
  session: ACPSession;
  agent: ACPAgent;
  workspace: NodeWorkspace;
  prompts: PromptRegistry;
  store: SessionStore;
  read(path: string): string;
  write(path: string, text: string): void;
  /** Runs `/name args` as a front door would, collecting the events. */
  command(name: string, args?: string, options?: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void }): Promise<{ events: AgentEvent[]; result: RunResult }>;
  dispose(): void;
}

/**
 * A temp project whose agents talk to `server` (OpenAI wire format) and may
 * write and run commands, with the built-in agents (build, task-pair), a
 * stored session and subagents; `copyFrom` copies a fixture folder in first.
 */
export function speckitProject(server: FakeLlmServer, options: { copyFrom?: string; git?: boolean; concurrency?: number; settings?: string } = {}): SpeckitProject {
  const root = mkdtempSync(join(tmpdir(), 'crow-speckit-'));
  const data = mkdtempSync(join(tmpdir(), 'crow-speckit-data-'));
  if (options.copyFrom) cpSync(options.copyFrom, root, { recursive: true });
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write(
    '.crow/config.toml',
    `provider = "local"\n[providers.local]\ntype = "openai"\nbase_url = "${server.openaiBaseUrl}"\ndefault_model = "fake-model"\n` +
      `[permissions]\nwrite = "allow"\nexecute = "allow"\n${options.settings ?? ''}`,
  );
  if (options.git) initGit(root);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: data, XDG_CONFIG_HOME: join(data, 'config'), XDG_DATA_HOME: join(data, 'data') };
  // The project's own config (a local provider, writes and commands allowed) is the user's: trusted.
  const settings = resolveSettings(root, {}, env, { trusted: true });
  const { registry, errors } = AgentRegistry.load(root, env, { trusted: true });
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  const workspace = new NodeWorkspace(root);
  const prompts = PromptRegistry.forWorkspace(root, env);
  const tools = builtinTools();
  const store = new SessionStore({ dataHome: join(data, 'data', 'crow-agent') });
  const agent = assembleAgent('build', { registry, config: settings, workspace, prompts, env, tools });
  const session = new ACPSession({ cwd: root, agentName: 'build', permissions: new PermissionGate({ policy: policyFromConfig(settings.permissions) }) });
  session.subagents = new SubagentRunner({ registry, settings, workspace, prompts, env, tools, store, concurrency: { local: options.concurrency ?? 1 } });
  const stored = store.attach(session);
  const commands = new Map(speckitCommands().map((c) => [c.name, c]));
  return {
    root,
    data,
    env,
    settings,
    session,
    agent,
    workspace,
    prompts,
    store,
    read: (path) => readFileSync(join(root, path), 'utf8'),
    write,
    async command(name, args = '', runOptions = {}) {
      const command = commands.get(name);
      if (!command) throw new Error(`no command ${name}`);
      const stream = command.run({ session, agent, workspace, args, env, signal: runOptions.signal ?? new AbortController().signal, prompts, settings });
      const events: AgentEvent[] = [];
      for await (const event of stream) {
        events.push(event);
        runOptions.onEvent?.(event);
      }
      return { events, result: await stream.result };
    },
    dispose() {
      stored.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    },
  };
}

function initGit(root: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'start');
}

/** A model reply that writes a file, then one that says it is done. */
export function writes(path: string, content: string, answer = `Wrote ${path}.`): ScriptedReply[] {
  return [{ blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path, content } }] }, { blocks: [{ type: 'text', text: answer }] }];
}

/** A reply calling task_complete: how a worker hands its work over and how a reviewer approves it. */
export function completes(summary: string, latencyMs = 0): ScriptedReply {
  return { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary } }], ...(latencyMs > 0 ? { latencyMs } : {}) };
}

/** The text the model saw in request `index` of the server (all messages, JSON). */
export function requestText(server: FakeLlmServer, index: number): string {
  return JSON.stringify(server.requestsFor('openai')[index]!.body.messages);
}

export const SPEC = `# Feature Specification: Photo albums

## User Scenarios & Testing

### User Story 1 - Browse albums by date (Priority: P1)

People see their photos grouped by the day they were taken.

**Acceptance Scenarios**:

1. **Given** photos from two days, **When** the library opens, **Then** two albums show

## Requirements

### Functional Requirements

- **FR-001**: The library MUST group photos into one album per day.
- **FR-002**: Albums MUST be listed newest first.

## Success Criteria

- **SC-001**: A library of 1,000 photos opens in under a second.
`;

export const PLAN = `# Implementation Plan: Photo albums

## Technical Context

**Language/Version**: TypeScript

## Constitution Check

- Tests first: every task ships with its test.
`;

export const TASKS = `# Tasks: Photo albums

## Phase 1: Setup

- [ ] T001 Create src/albums/index.ts

## Phase 2: User Story 1 - Browse albums by date (Priority: P1)

**Goal**: Albums by day

- [ ] T002 [P] [US1] Group photos by day in src/albums/group.ts (FR-001)
- [ ] T003 [P] [US1] Sort albums newest first in src/albums/sort.ts (FR-002)

**Checkpoint**: Albums show by day
`;
