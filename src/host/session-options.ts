/** What a HostSession is given by its front door: where it keeps the session, where tools act, who to ask. */
import type { NoticeAction, NoticeLevel } from '../engine/events';
import type { ElicitFn } from '../mcp/elicitation-form';
import type { McpAuth } from '../mcp/mcp-connection';
import type { ElicitUrlFn } from '../mcp/elicitation-url';
import type { OfferedCommand, PromptArgumentAsk } from '../mcp/prompt-commands';
import type { McpServerConfig } from '../mcp/server-config';
import type { ACPSession } from '../session/acp-session';
import type { SessionDependencies } from '../session/session-store';
import type { SessionTotals } from '../session/session-totals';
import type { SpanRecord } from '../telemetry/span';
import type { Meter } from '../vocabulary/meter';
import type { AskFn } from '../tools/permissions';
import type { PermissionCategory, PermissionRule } from '../vocabulary/permission-types';
import type { Workspace } from '../tools/workspace';
import type { Limits } from '../config/settings';
import type { KeeperLaunch } from '../journal/keeper-client';
import type { HowToRaise } from './budget';
import type { WorkspaceCatalog } from './catalog';

/** Where sessions are kept. The SessionStore of src/session satisfies it. */
export interface HostStore {
  /** Starts keeping `session`: its changes are saved from now on. Throws when another process keeps it. */
  attach(session: ACPSession): { save(): void; close(): void };
  /** Rebuilds a stored session; throws when there is none. */
  load(id: string, dependencies: SessionDependencies): ACPSession;
  /** A stored session's running totals, for its cost so far. */
  totals?(id: string): SessionTotals;
  /** What the parallel attempts a session ran (and their judges) cost: their sessions are stored apart (attempt-costs.ts). */
  attemptsMeter?(id: string): Meter;
  /** A stored session's spans, for its cost so far when the store keeps no totals. */
  spans?(id: string): SpanRecord[];
  /** Removes a stored session: one stored from a first prompt that failed before reaching the agents. */
  delete?(id: string): void;
}

/** What the host tells a front door outside the events of a prompt. */
export interface HostObserver {
  /** Something the user should know while no prompt runs (an MCP server that failed between prompts). */
  notice?(level: NoticeLevel, message: string, title?: string, action?: NoticeAction): void;
  /** A slash command switched the session to another agent. */
  agentChanged?(agent: string): void;
  /** The session's MCP servers offer these prompts as slash commands (told when they first list them, and when that changes). */
  commandsOffered?(commands: OfferedCommand[]): void;
  /** The session got its title (from its first prompt). */
  titled?(title: string): void;
}

export interface HostSessionOptions {
  /** The folder's configuration, asked at every prompt: a front door whose settings change returns a fresh one. */
  catalog: () => WorkspaceCatalog | Promise<WorkspaceCatalog>;
  store: HostStore;
  /** Where the tools act (the local disk, an ACP client's files, VS Code's workspace). */
  workspace: Workspace;
  /** Asks a person; absent when nobody can answer (then "ask" is a denial that says how to allow). */
  ask?: AskFn;
  /** How to allow a category when nobody can be asked, e.g. "pass --allow execute". */
  howToAllow?: (category: PermissionCategory) => string;
  /** Rules the user forced for this session (crow run --allow), over any agent's policy. */
  forced?: Partial<Record<PermissionCategory, PermissionRule>>;
  /** Caps on automatic approvals per prompt, read at every prompt (VS Code settings). */
  caps?: () => Partial<Record<PermissionCategory, number>>;
  /** Spending limits this front door sets (crow run --max-cost), over the folder's [limits]. */
  limits?: Limits;
  /** How this door tells the person to raise a limit the run stopped at; default: in config.toml. */
  howToRaise?: HowToRaise;
  /** Undo points before every prompt and state-changing tool; absent: no undo. */
  undo?: { dataHome: string; env: NodeJS.ProcessEnv; keeper?: KeeperLaunch };
  /** Asks the person an MCP server's form; absent when nobody can answer (the server's question is then declined, and the person told why). */
  elicit?: ElicitFn;
  /** Offers the person a page an MCP server asks them to open (URL-mode elicitation), its domain first; absent: servers are told Crow cannot. */
  elicitUrl?: ElicitUrlFn;
  /** Asks the person for an argument an MCP prompt command left out, offering the server's completions; absent: the command fails naming it. */
  askPromptArgument?: PromptArgumentAsk;
  /** Why nobody can answer an MCP server's question here, for that notice (e.g. "crow run is not on a terminal"). */
  elicitUnavailable?: string;
  /** How remote MCP servers sign in here (where tokens are kept, how the person is told to sign in); absent: a server that asks is reported as unusable. */
  mcpAuth?: McpAuth;
  /** MCP servers this front door adds for the session (an ACP client's), besides the folder's. */
  mcpServers?: readonly McpServerConfig[];
  /** Store the session from the moment it opens (default), or only from its first prompt (a chat view opened and left empty). */
  storeFromFirstPrompt?: boolean;
  /** The environment programmatic commands and prompts see. */
  env: NodeJS.ProcessEnv;
  observer?: HostObserver;
}
