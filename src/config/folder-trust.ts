/**
 * Deciding whether a folder's own configuration is trusted, and saying so.
 * A folder whose `.crow/` asks for nothing beyond the user's settings needs
 * no decision. Otherwise the user's remembered answer decides (for exactly
 * what they were shown), or a front door's own trust (VS Code's Workspace
 * Trust), or a person asked now; until then the widenings are left out.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { parseBaseAgent } from './agent-definitions';
import { readMarkdownFiles } from './markdown-files';
import { projectConfigDir } from './paths';
import { judgeProjectSettings, type Widening, wideningFingerprint } from './project-trust';
import { settingsLayers } from './provider-config';
import type { SettingsDocument } from './settings-file';
import { type TrustLookup, TrustStore } from './trust-store';

const RANK: Record<string, number> = { allow: 0, ask: 1, deny: 2 };
const DEFAULT_RULES: Record<string, string> = { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' };

/** What a folder asks for, and how to recognise the same request later. */
export interface ProjectRequest {
  /** The folder's real path: trust is remembered by it. */
  folder: string;
  widenings: Widening[];
  fingerprint: string;
}

/** The outcome for one folder. */
export interface TrustDecision {
  trusted: boolean;
  request: ProjectRequest;
  /**
   * How it was decided: nothing to decide (`none`), the user's remembered
   * answer, a front door's own trust, a person just now, or not at all
   * (`unknown`: nobody could be asked; `changed`: the project asks for
   * something else than what was trusted).
   */
  how: 'none' | 'remembered' | 'front door' | 'asked' | 'unknown' | 'changed';
}

/** What the project at `root` asks for beyond the user's own settings: its config.toml and agent definitions. */
export function projectRequest(root: string, env: NodeJS.ProcessEnv, frontDoor?: SettingsDocument): ProjectRequest {
  const layers = settingsLayers(root, env, frontDoor);
  const widenings = [
    ...judgeProjectSettings(layers.project, layers.baseline, layers.projectFile).widenings,
    ...agentWidenings(root, (layers.baseline.permissions ?? {}) as Record<string, unknown>),
  ];
  return { folder: realFolder(root), widenings, fingerprint: wideningFingerprint(widenings) };
}

export interface DecideOptions {
  env: NodeJS.ProcessEnv;
  frontDoor?: SettingsDocument;
  /** A front door's own verdict on the folder (VS Code's Workspace Trust); when set, it decides. */
  frontDoorTrusted?: boolean;
  /** Asks a person, when one can answer; the answer is remembered. */
  ask?: (request: ProjectRequest, previously: TrustLookup) => Promise<boolean>;
  store?: TrustStore;
}

export async function decideTrust(root: string, options: DecideOptions): Promise<TrustDecision> {
  const request = projectRequest(root, options.env, options.frontDoor);
  if (request.widenings.length === 0) return { trusted: true, request, how: 'none' };
  if (options.frontDoorTrusted !== undefined) return { trusted: options.frontDoorTrusted, request, how: 'front door' };
  const store = options.store ?? new TrustStore(options.env);
  const known = store.lookup(request.folder, request.fingerprint);
  if (known === 'trusted' || known === 'untrusted') return { trusted: known === 'trusted', request, how: 'remembered' };
  if (!options.ask) return { trusted: false, request, how: known };
  const trusted = await options.ask(request, known);
  store.remember(request.folder, request.fingerprint, trusted ? 'trusted' : 'untrusted');
  return { trusted, request, how: 'asked' };
}

/** The one line a front door shows when a folder's widenings are left out; undefined when nothing was. */
export function untrustedNotice(decision: TrustDecision, howToTrust: string): string | undefined {
  if (decision.trusted || decision.request.widenings.length === 0) return undefined;
  const what = decision.request.widenings.map((w) => w.setting).join(', ');
  const why =
    decision.how === 'changed'
      ? 'asks for something other than what you trusted'
      : decision.how === 'remembered' || decision.how === 'asked'
        ? 'is not trusted'
        : 'is not trusted yet';
  return `This folder's .crow/ configuration ${why}, so these parts are ignored: ${what}. ${howToTrust}`;
}

/** The request as lines a person reads before deciding. */
export function describeRequest(request: ProjectRequest): string[] {
  return request.widenings.map((w) => `${w.setting}: ${w.text} (${w.file})`);
}

/** Project base agents that would loosen a permission or run another agent. */
function agentWidenings(root: string, baseline: Record<string, unknown>): Widening[] {
  const widenings: Widening[] = [];
  for (const file of readMarkdownFiles(join(projectConfigDir(root), 'agents', 'base'))) {
    const { definition } = parseBaseAgent(file, undefined);
    if (!definition) continue;
    const name = `agents.${definition.name}`;
    if (definition.external) {
      const reach = 'url' in definition.external ? definition.external.url : definition.external.command.join(' ');
      widenings.push({ file: file.path, setting: name, text: `runs another agent: ${reach}` });
    }
    const own = definition.permissions ?? {};
    for (const category of Object.keys(DEFAULT_RULES)) {
      const rule = own[category as keyof typeof own] as string | undefined;
      const base = (baseline[category] as string | undefined) ?? DEFAULT_RULES[category]!;
      if (rule !== undefined && RANK[rule]! < RANK[base]!) {
        widenings.push({ file: file.path, setting: `${name}.permissions.${category}`, text: `${category} = "${rule}" for this agent (you have "${base}")` });
      }
    }
    const trustedCommands = new Set(Array.isArray(baseline.allow_commands) ? (baseline.allow_commands as string[]) : []);
    const extra = (own.allowCommands ?? []).filter((command) => !trustedCommands.has(command));
    if (extra.length > 0) {
      widenings.push({ file: file.path, setting: `${name}.permissions.allow_commands`, text: `runs without asking: ${extra.map((c) => JSON.stringify(c)).join(', ')}` });
    }
  }
  return widenings;
}

function realFolder(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}
