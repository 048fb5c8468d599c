/**
 * The shape of one row of the configuration table (see config-keys.ts): a
 * setting a person can set, in config.toml, in VS Code's settings or both,
 * with everything every part of Crow derives from it.
 */
import type * as z from 'zod';

/**
 * What a project's own `.crow/config.toml` may do with a key before the
 * folder is trusted (see project-trust.ts, which applies these):
 * - `any`: anything; it changes how the agent works, not what it may reach.
 * - `fields`: a table whose keys are judged one by one, each by its own rule.
 * - `same`: only what the user's settings already say.
 * - `narrow`: only move toward `order`'s end (`order` lists the values widest
 *   first), or with `direction` a number only lower (`lower`) or higher
 *   (`higher`) than the user's; the user's value, else the key's default, is
 *   the line.
 * - `subset`: a list may hold only entries the user's list has.
 * - `entries`: a table of named things, judged entry by entry (providers,
 *   MCP servers; see project-trust.ts).
 * - `never`: only a trusted folder sets it.
 */
export type TrustRule =
  | { kind: 'any' }
  | { kind: 'fields' }
  | { kind: 'same'; widens: (value: unknown) => string }
  | { kind: 'narrow'; order: readonly unknown[]; widens: Widens }
  | { kind: 'narrow'; direction: 'lower' | 'higher'; widens: Widens }
  | { kind: 'subset'; widens: (extra: unknown[]) => string; /** The widening's fingerprint holds the extra entries. */ fingerprintExtra: boolean }
  | { kind: 'entries'; judge: 'providers' | 'mcp_servers' }
  | { kind: 'never'; widens: (value: unknown) => string; /** The widening's fingerprint holds the value (a text that says all of it needs none). */ fingerprintValue: boolean; /** One widening per list entry (hooks). */ each?: boolean };

/** What a project's value says it widens, given the line it crossed: e.g. `write = "allow": write without asking (you have "ask")`. */
export type Widens = (value: unknown, line: unknown, field: string) => string;

/** How a key appears in VS Code's settings (package.json `contributes.configuration`). */
export interface VscodeSetting {
  /** The setting without its `crow.` prefix, e.g. `permissions.write`. */
  name: string;
  /** The JSON type VS Code's settings editor shows. */
  type: 'string' | 'number' | 'boolean' | 'array' | 'object';
  /** What the settings editor shows when nobody set it ("", 0, [] mean "not set: config.toml decides"). */
  default: unknown;
  /** Markdown shown under the setting (package.nls.json holds it, keyed config.NAME.markdownDescription). */
  description: string;
  /** Further JSON Schema the editor checks (minimum, items, additionalProperties, uniqueItems). */
  extra?: Record<string, unknown>;
  /** Whether it wins over the environment too, as a command-line flag does (provider, model); otherwise it is set over the project's config.toml. */
  override?: true;
  /** Whether an empty list set here is a choice (no command runs unasked) rather than "not set". */
  keepEmpty?: true;
}

/** A value of an enumeration: the one-line help the settings editor and the docs show, and a label where the value alone reads badly. */
export interface EnumValue {
  help: string;
  label?: string;
}

export interface ConfigKey {
  /**
   * Dotted, as `crow config` takes it: `permissions.write`; a table of named
   * things is `providers.NAME` or `hooks[]`. VS Code-only settings (no
   * config.toml key) have `file: false` and are named as VS Code names them.
   */
  key: string;
  /** One line of help: `crow config explain`, the JSON Schema's description, the docs. */
  help: string;
  /**
   * The value's schema in the file's spelling. Absent for a table whose
   * schema is built from the keys under it (`permissions`, `sandbox`).
   */
  schema?: () => z.ZodType;
  /** For a table built from its keys: a value that is short for one of its fields (`sandbox = "auto"` is `[sandbox] mode = "auto"`). */
  shorthand?: string;
  /** The value in force when nothing sets it; absent: none (or, with `defaultText`, one that depends). */
  default?: unknown;
  /** The default in words, when it depends on something (the provider's default model). */
  defaultText?: string;
  trust: TrustRule;
  /** The environment variable that wins over the files, if any. */
  env?: string;
  /** For a table of named things: variables that win over one field of some entries (ANTHROPIC_BASE_URL is providers.anthropic.base_url). */
  namedEnv?: { field: string; variables: Readonly<Record<string, string>> };
  /** The enumeration's values, in order, with their help. */
  values?: Readonly<Record<string, EnumValue>>;
  vscode?: VscodeSetting;
  /** false: a VS Code setting with no config.toml key. */
  file?: false;
}

/** An environment variable Crow reads that is not a settings key: where a tool is, a switch for one program. */
export interface EnvironmentVariable {
  name: string;
  help: string;
}
