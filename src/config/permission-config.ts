import { DEFAULT_POLICY, PERMISSION_CATEGORIES, type PermissionCategory, type PermissionPolicy } from '../vocabulary/permission-types';
import { didYouMean } from '../vocabulary/did-you-mean';
import { ConfigError, type ConfigFile } from './settings';

/**
 * The policy a config file describes, on top of DEFAULT_POLICY. While the
 * sandbox contains commands (`sandboxed`), execute defaults to allow: a
 * command cannot reach outside the workspace, the network or our keys.
 * Tools that run outside the sandbox (MCP) still ask (executeBySandbox).
 * A rule set explicitly (file, flag, setting, definition) wins either way.
 */
export function policyFromConfig(permissions: ConfigFile['permissions'], sandboxed = false): PermissionPolicy {
  const bySandbox = sandboxed && permissions?.execute === undefined;
  return {
    ...(bySandbox ? { executeBySandbox: true } : {}),
    rules: {
      read: permissions?.read ?? DEFAULT_POLICY.rules.read,
      write: permissions?.write ?? DEFAULT_POLICY.rules.write,
      execute: permissions?.execute ?? (bySandbox ? 'allow' : DEFAULT_POLICY.rules.execute),
      network: permissions?.network ?? DEFAULT_POLICY.rules.network,
    },
    allowCommands: permissions?.allowCommands ?? DEFAULT_POLICY.allowCommands,
  };
}

/** Parses a comma list of categories ("write,execute" or "all"), naming any unknown one. */
export function parseCategories(list: string, flag: string): PermissionCategory[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.includes('all')) return [...PERMISSION_CATEGORIES];
  return names.map((name) => {
    if ((PERMISSION_CATEGORIES as readonly string[]).includes(name)) return name as PermissionCategory;
    const guess = didYouMean(name, [...PERMISSION_CATEGORIES, 'all']);
    throw new ConfigError(
      `${flag}: unknown permission "${name}". Use ${PERMISSION_CATEGORIES.join(', ')} or all.${guess ? ` Did you mean "${guess}"?` : ''}`,
    );
  });
}

