/**
 * The permission vocabulary every layer shares: the categories a tool
 * declares, the rules a policy gives them, and the default policy. The gate
 * that applies them is tools/permissions.ts.
 */

export type PermissionCategory = 'read' | 'write' | 'execute' | 'network';
export const PERMISSION_CATEGORIES: readonly PermissionCategory[] = ['read', 'write', 'execute', 'network'];

export type PermissionRule = 'allow' | 'ask' | 'deny';

export interface PermissionPolicy {
  rules: Record<PermissionCategory, PermissionRule>;
  /**
   * Commands that run without asking, as prefixes of literal words (e.g.
   * "npm test", "git status"). A command line is covered only if every
   * simple command in it starts with some entry and it has nothing an entry
   * cannot vouch for (see command-rules.ts).
   */
  allowCommands: readonly string[];
  /**
   * execute is "allow" only because commands run in the sandbox (no rule set
   * it): it covers requests marked `sandboxed`; other execute tools (MCP
   * tools, which run outside the sandbox) ask instead.
   */
  executeBySandbox?: boolean;
}

/** Reads are free; changes, commands and the network ask first. */
export const DEFAULT_POLICY: PermissionPolicy = {
  rules: { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' },
  allowCommands: [],
};
