/**
 * What an evaluation's results were made with. Every results.jsonl starts
 * with one manifest line: crow's version and git commit, the provider and
 * model, each agent's definition hash and each of its roles' model, each
 * task's hash, the budget, the backend, the seed and, for a shard, which
 * slice it is. Results are only comparable under the same manifest: a
 * rerun into the same folder with another model, a changed task or agent
 * definition is refused rather than mixed in, and `crow eval merge`
 * refuses shards made differently.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { version } from '../../package.json';
import { AgentRegistry } from '../config/agent-registry';
import { agentModel } from '../config/provider-config';
import type { Settings } from '../config/settings';
import type { RoleDefaults } from '../host/folder';
import { withoutSecrets } from '../config/secret-variables';
import type { ContainerBackend } from './container-workspace';
import type { EvalTask } from './eval-task';
import { childProcess } from '../vocabulary/first-use';

export const MANIFEST_FORMAT = 1;

export interface EvalManifest {
  kind: 'manifest';
  format: number;
  crowVersion: string;
  /** The git commit crow was built from, when it runs from a checkout. */
  gitCommit?: string;
  createdAt: string;
  provider: string;
  model: string;
  /** Per agent: a hash of its definitions (composition and base agents) and each role's provider/model. */
  agents: Record<string, { definition: string; roles: Record<string, string> }>;
  /** Per task: a hash of task.toml, files/ and hidden/. */
  tasks: Record<string, string>;
  budget: { tokens: number; wallMs: number };
  backend: string;
  seed: number;
  /** Set on a shard's results: slice `index` of `count` of the whole plan (`tasks` lists the whole suite). */
  shard?: { index: number; count: number };
  /** Set when every run also had a best-of-N arm (crow eval --attempts N): N, and the judge's agent. */
  attempts?: { count: number; judge: string };
}

/** The settings that decide what a result means. */
export interface ManifestInput {
  tasks: readonly EvalTask[];
  agents: readonly string[];
  settings: Settings;
  roles?: RoleDefaults;
  env: NodeJS.ProcessEnv;
  budget: { tokens: number; wallMs: number };
  container?: ContainerBackend;
  seed: number;
  shard?: { index: number; count: number };
  attempts?: { count: number; judge: string };
}

export function buildManifest(input: ManifestInput): EvalManifest {
  const registry = AgentRegistry.load(emptyFolder(), input.env, { trusted: false }).registry;
  const agents: EvalManifest['agents'] = {};
  for (const agent of input.agents) agents[agent] = agentIdentity(agent, registry, input.settings, input.roles ?? {});
  const commit = gitCommit();
  return {
    kind: 'manifest',
    format: MANIFEST_FORMAT,
    crowVersion: version,
    ...(commit !== undefined ? { gitCommit: commit } : {}),
    createdAt: new Date().toISOString(),
    provider: input.settings.provider,
    model: input.settings.model,
    agents,
    tasks: Object.fromEntries(input.tasks.map((task) => [task.name, taskHash(task.dir)])),
    budget: input.budget,
    backend: input.container ? `${input.container.engine}:${input.container.image}` : 'local',
    seed: input.seed,
    ...(input.shard ? { shard: input.shard } : {}),
    ...(input.attempts ? { attempts: input.attempts } : {}),
  };
}

/**
 * Where two manifests disagree on what makes results comparable, in words;
 * none when they agree. Tasks and agents only one of them has are not a
 * disagreement (a later run may add some); a task or agent both have must
 * hash alike.
 */
export function differences(earlier: EvalManifest, now: EvalManifest, options: { shards?: boolean } = {}): string[] {
  const found: string[] = [];
  const same = (what: string, a: unknown, b: unknown): void => {
    if (JSON.stringify(a) !== JSON.stringify(b)) found.push(`${what}: ${show(a)} then, ${show(b)} now`);
  };
  same('provider', earlier.provider, now.provider);
  same('model', earlier.model, now.model);
  same('budget', earlier.budget, now.budget);
  same('backend', earlier.backend, now.backend);
  same('format', earlier.format, now.format);
  same('attempts', earlier.attempts ?? 'none', now.attempts ?? 'none');
  if (options.shards) {
    same('seed', earlier.seed, now.seed);
    same('shard count', earlier.shard?.count, now.shard?.count);
  }
  for (const [agent, identity] of Object.entries(now.agents)) {
    const before = earlier.agents[agent];
    if (!before) continue;
    if (before.definition !== identity.definition) found.push(`agent ${agent}'s definition changed (hash ${before.definition.slice(0, 12)} then, ${identity.definition.slice(0, 12)} now)`);
    same(`agent ${agent}'s role models`, before.roles, identity.roles);
  }
  for (const [task, hash] of Object.entries(now.tasks)) {
    const before = earlier.tasks[task];
    if (before !== undefined && before !== hash) found.push(`task ${task} changed (hash ${before.slice(0, 12)} then, ${hash.slice(0, 12)} now)`);
  }
  return found;
}

/** `earlier` extended with the tasks and agents `now` adds. */
export function extended(earlier: EvalManifest, now: EvalManifest): EvalManifest {
  return { ...earlier, agents: { ...now.agents, ...earlier.agents }, tasks: { ...now.tasks, ...earlier.tasks } };
}

export function isManifest(value: unknown): value is EvalManifest {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'manifest';
}

/** "anthropic/claude-sonnet-4-6 · crow 0.1.0 (abc1234) · seed 1": the line a report shows. */
export function provenance(manifest: EvalManifest | undefined): string {
  if (!manifest) return 'made without a manifest (an older results file)';
  const commit = manifest.gitCommit ? ` (${manifest.gitCommit.slice(0, 10)})` : '';
  const shard = manifest.shard ? ` · shard ${manifest.shard.index}/${manifest.shard.count}` : '';
  const attempts = manifest.attempts ? ` · best of ${manifest.attempts.count} judged by ${manifest.attempts.judge}` : '';
  return `${manifest.provider}/${manifest.model} · crow ${manifest.crowVersion}${commit} · backend ${manifest.backend} · seed ${manifest.seed}${shard}${attempts}`;
}

/** sha256 of a task's definition: task.toml and every file under files/ and hidden/, by path. */
export function taskHash(dir: string): string {
  const hash = createHash('sha256');
  const add = (path: string): void => {
    hash.update(`${relative(dir, path).split('\\').join('/')}\0`);
    hash.update(readFileSync(path));
    hash.update('\0');
  };
  add(join(dir, 'task.toml'));
  for (const folder of ['files', 'hidden']) for (const file of filesIn(join(dir, folder))) add(file);
  return hash.digest('hex');
}

function agentIdentity(agent: string, registry: AgentRegistry, settings: Settings, roles: RoleDefaults): EvalManifest['agents'][string] {
  const composition = registry.acpAgent(agent);
  const names = composition ? [composition.primary, ...(composition.coagent !== undefined ? [composition.coagent] : [])] : [agent];
  const bases = names.map((name) => registry.baseAgent(name));
  const definition = createHash('sha256')
    .update(stable([composition, ...bases].map((d) => (d ? { ...d, file: undefined, origin: undefined } : null))))
    .digest('hex');
  const modelOf: Record<string, string> = {};
  const parts: [string, string | undefined][] = [['primary', composition?.primary ?? agent], ['coagent', composition?.flow.kind === 'coagent' ? composition.coagent : undefined]];
  for (const [role, name] of parts) {
    const base = name !== undefined ? registry.baseAgent(name) : undefined;
    if (!base) continue;
    const movedProvider = roles.providers?.[role as 'primary' | 'coagent'];
    const choice = agentModel(settings, movedProvider !== undefined ? { provider: movedProvider } : { ...(base.provider ? { provider: base.provider } : {}), ...(base.model ? { model: base.model } : {}) });
    const model = roles.models?.[role as 'primary' | 'coagent'] ?? choice.model ?? settings.providers[choice.provider]?.defaultModel ?? settings.model;
    modelOf[role] = `${choice.provider}/${model}`;
  }
  return { definition, roles: modelOf };
}

/** JSON with keys in order, undefined left out: the same value always gives the same text. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function filesIn(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(folder).sort()) {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) files.push(...filesIn(path));
    else files.push(path);
  }
  return files;
}

/** The commit of the checkout crow runs from, when it is one. */
function gitCommit(): string | undefined {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  if (!existsSync(join(dir, '.git'))) return undefined;
  try {
    return childProcess().execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: withoutSecrets(process.env), timeout: 5_000 }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A folder with no project configuration, as a run's throwaway copy has none: the user's and the built-in agents only. */
function emptyFolder(): string {
  return tmpdir();
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
