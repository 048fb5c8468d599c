/**
 * Deciding whether a folder's own configuration is trusted, and saying so.
 * A folder whose `.crow/` asks for nothing beyond the user's settings needs
 * no decision. Otherwise the user's remembered answer decides (for exactly
 * what they were shown), or a front door's own trust (VS Code's Workspace
 * Trust), or a person asked now; until then the widenings are left out.
 */
import { realpathSync } from 'node:fs';
import { agentWidenings } from './agent-trust';
import { claudeHookWidenings } from './hook-trust';
import { mcpImportWidenings } from './mcp-import';
import { judgeProjectSettings, type Widening, wideningFingerprint } from './project-trust';
import { settingsLayers } from './provider-config';
import type { SettingsDocument } from './settings-file';
import { type TrustLookup, TrustStore } from './trust-store';

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
    ...agentWidenings(root, env, layers.baseline),
    ...claudeHookWidenings(root, env, layers),
    ...mcpImportWidenings(root, env, layers),
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
  const what = [...new Set(decision.request.widenings.map((w) => w.setting))].join(', ');
  const why =
    decision.how === 'changed'
      ? 'asks for something other than what you trusted'
      : decision.how === 'remembered' || decision.how === 'asked'
        ? 'is not trusted'
        : 'is not trusted yet';
  const whose = decision.request.widenings.every((w) => w.file.includes('.crow')) ? '.crow/ configuration' : 'own configuration';
  return `This folder's ${whose} ${why}, so these parts are ignored: ${what}. ${howToTrust}`;
}

/** The command that trusts `root`, ready to paste into a POSIX shell. */
export function trustCommandFor(root: string): string {
  const arg = /^[\w@%+=:,./-]+$/.test(root) ? root : `'${root.replace(/'/g, `'\\''`)}'`;
  return `crow trust --cwd ${arg}`;
}

/**
 * The request as entries a person reads before deciding, each whole (what
 * is trusted is what was shown): longer ones wrapped at `width` columns,
 * their later lines indented.
 */
export function describeRequest(request: ProjectRequest, width = 96): string[] {
  return request.widenings.map((w) => wrapText(`${w.setting}: ${w.text} (${w.file})`, width, '    '));
}

/** `text` broken at spaces into lines of at most `width` characters (a longer word is split, never dropped), joined with `indent`. */
export function wrapText(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const space = rest.lastIndexOf(' ', width);
    lines.push(rest.slice(0, space > 0 ? space : width));
    rest = rest.slice(space > 0 ? space + 1 : width);
  }
  lines.push(rest);
  return lines.join(`\n${indent}`);
}

function realFolder(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}
