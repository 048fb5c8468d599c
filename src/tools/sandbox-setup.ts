/**
 * What a front door needs to put commands in the sandbox: the workspace's
 * sandbox options from the settings, whether it is active (execute then
 * defaults to allow, see policyFromConfig), and what to tell the user once.
 */
import { configHome, dataHome } from '../config/paths';
import type { Settings } from '../config/settings';
import { DEFAULT_SANDBOX_MODE, DEFAULT_SANDBOX_PORTS, DEFAULT_SANDBOX_TMP_SIZE_MB } from '../config/keys/defaults';
import { secretVariableNames } from '../config/secret-variables';
import { requiredButUnavailable, type SandboxOptions } from './command-sandbox';
import { probeSandbox } from './sandbox-probe';

/** Use the sandbox where it runs, say once where it does not. */
export { DEFAULT_SANDBOX_MODE };

export interface SandboxSetup {
  /** For NodeWorkspace (or VscodeWorkspace) on this workspace. */
  options: SandboxOptions;
  /** Whether commands will run in the sandbox: the mode is not off and bubblewrap runs here. */
  active: boolean;
  /** Why commands run without the sandbox (auto) or do not run (required); undefined when active or off. */
  notice?: string;
}

/**
 * The sandbox the settings ask for. The network is open to commands only
 * when the network permission is "allow" in the settings, or `allowNetwork`
 * (a front door's flag, e.g. `--allow network`) says so; otherwise only the
 * domains of `[sandbox] allow_domains` are reached, through Crow's proxy.
 */
export function sandboxSetup(settings: Settings, env: NodeJS.ProcessEnv = process.env, allowNetwork = false): SandboxSetup {
  const mode = settings.sandbox ?? DEFAULT_SANDBOX_MODE;
  const options: SandboxOptions = {
    mode,
    protectedPaths: [configHome(env), dataHome(env)],
    network: allowNetwork || settings.permissions?.network === 'allow',
    hiddenVariables: secretVariableNames(settings),
    allowDomains: settings.sandboxDomains ?? [],
    allowPorts: settings.sandboxPorts ?? DEFAULT_SANDBOX_PORTS,
    allowPrivateAddresses: settings.sandboxPrivateAddresses ?? false,
    tmpSizeMb: settings.sandboxTmpSizeMb ?? DEFAULT_SANDBOX_TMP_SIZE_MB,
  };
  if (mode === 'off') return { options, active: false };
  const probe = probeSandbox(env);
  if (probe.available) return { options, active: true };
  const notice =
    mode === 'required'
      ? requiredButUnavailable(probe.reason)
      : `Commands run without the sandbox: ${probe.reason}. Set sandbox = "off" in config.toml (crow.sandbox in VS Code) to silence this notice.`;
  return { options, active: false, notice };
}

const told = new Set<string>();

/** The setup's notice the first time this process meets it, later undefined: front doors say it once. */
export function noticeOnce(setup: SandboxSetup): string | undefined {
  if (setup.notice === undefined || told.has(setup.notice)) return undefined;
  told.add(setup.notice);
  return setup.notice;
}
