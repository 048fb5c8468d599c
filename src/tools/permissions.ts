/**
 * The permission policy. Every tool declares the category of what it does;
 * a policy per agent says allow, ask or deny for each category; "ask" goes
 * to the front door (ACP permission request, VS Code prompt, CLI prompt)
 * through an AskFn. "Always" answers are remembered for the session.
 */

export type PermissionCategory = 'read' | 'write' | 'execute' | 'network';
export const PERMISSION_CATEGORIES: readonly PermissionCategory[] = ['read', 'write', 'execute', 'network'];

export type PermissionRule = 'allow' | 'ask' | 'deny';

export interface PermissionPolicy {
  rules: Record<PermissionCategory, PermissionRule>;
  /**
   * Command prefixes that run without asking (e.g. "npm test", "git status").
   * A command only matches when it is one simple command: no ; && || | ` $( or redirection.
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

/** What a tool call wants to do, in words a person can decide on. */
export interface PermissionRequest {
  tool: string;
  callId: string;
  agent: string;
  category: PermissionCategory;
  /** e.g. "Edit src/app.ts" or "Run: npm test". */
  title: string;
  /** The command line, for execute requests. */
  command?: string;
  /** The command runs in the workspace's sandbox (see PermissionPolicy.executeBySandbox). */
  sandboxed?: boolean;
  /** Workspace-relative paths the call touches. */
  paths: string[];
  /** What "always" would cover, e.g. "all file changes" or "commands starting with npm". */
  alwaysScope: string;
}

export type PermissionAnswer = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/** Asks a person. Resolves `reject_once` when the signal aborts or nobody can answer. */
export type AskFn = (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionAnswer>;

export type PermissionVerdict = { allowed: true; how: 'policy' | 'remembered' | 'user' } | { allowed: false; reason: string };

/**
 * Decides tool calls for one session: the policy first, then remembered
 * answers, then the person. Without an AskFn (non-interactive runs) "ask"
 * becomes a denial whose reason says how to allow it.
 */
export class PermissionGate {
  constructor(
    readonly policy: PermissionPolicy,
    private readonly ask?: AskFn,
    /** How to allow a category when nobody can be asked, e.g. "pass --allow execute". */
    private readonly howToAllow: (category: PermissionCategory) => string = (c) =>
      `allow "${c}" in the permission settings`,
    /** Rules the user set for this session (e.g. --allow write) that win over any agent's policy. */
    private readonly forced: Partial<Record<PermissionCategory, PermissionRule>> = {},
    /** "Always" answers, shared by every agent of the session. */
    private readonly remembered = new Map<string, boolean>(),
    /** Caps on automatic approvals, shared by every agent of the session; none when absent. */
    private readonly caps?: AutoApproveCaps,
  ) {}

  /**
   * The gate for one agent of the session: its own policy, under the
   * session's forced rules, sharing the session's remembered answers and asker.
   */
  forPolicy(policy: PermissionPolicy): PermissionGate {
    return new PermissionGate(policy, this.ask, this.howToAllow, this.forced, this.remembered, this.caps);
  }

  /** The gate with `rules` forced for the rest of the session. */
  forcing(rules: Partial<Record<PermissionCategory, PermissionRule>>): PermissionGate {
    return new PermissionGate(this.policy, this.ask, this.howToAllow, { ...this.forced, ...rules }, this.remembered, this.caps);
  }

  /** The rules in force: the policy under the session's forced rules. */
  effectiveRules(): Record<PermissionCategory, PermissionRule> {
    const rules = { ...this.policy.rules };
    for (const category of PERMISSION_CATEGORIES) rules[category] = this.forced[category] ?? rules[category];
    return rules;
  }

  /** Where `policy` would allow more than this gate does: what a subagent may not ask for. */
  exceededBy(policy: PermissionPolicy): { category: PermissionCategory; asked: PermissionRule; allowed: PermissionRule }[] {
    const mine = this.effectiveRules();
    return PERMISSION_CATEGORIES.flatMap((category) =>
      RANK[policy.rules[category]] < RANK[mine[category]] ? [{ category, asked: policy.rules[category], allowed: mine[category] }] : [],
    );
  }

  /**
   * The gate of a subagent: per category the stricter of this gate's rules
   * and `policy`, command allow-lists only where this gate would run them too,
   * sharing the asker and the remembered answers. Checked at every call.
   */
  narrow(policy: PermissionPolicy): PermissionGate {
    const mine = this.effectiveRules();
    const rules = { ...mine };
    for (const category of PERMISSION_CATEGORIES) {
      if (RANK[policy.rules[category]] > RANK[mine[category]]) rules[category] = policy.rules[category];
    }
    const allowCommands =
      mine.execute === 'allow' ? policy.allowCommands : policy.allowCommands.filter((prefix) => commandAllowed(prefix, this.policy.allowCommands));
    const bySandbox = rules.execute === 'allow' && this.forced.execute === undefined && (this.policy.executeBySandbox || policy.executeBySandbox);
    return new PermissionGate({ rules, allowCommands, ...(bySandbox ? { executeBySandbox: true } : {}) }, this.ask, this.howToAllow, {}, this.remembered, this.caps);
  }

  /**
   * Asks a person once, outside any policy (an approval gate), waiting at
   * most `timeoutMs`. Nobody to ask counts as `unavailable`.
   */
  async approve(request: PermissionRequest, signal: AbortSignal, timeoutMs: number): Promise<'allowed' | 'denied' | 'timeout' | 'unavailable'> {
    if (!this.ask) return 'unavailable';
    const timeout = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // The race keeps the promise even for an asker that ignores its signal.
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => {
        timeout.abort();
        resolve('timeout');
      }, timeoutMs);
    });
    try {
      const answer = await Promise.race([this.ask(request, AbortSignal.any([signal, timeout.signal])), expired]);
      if (answer === 'timeout') return 'timeout';
      return answer === 'allow_once' || answer === 'allow_always' ? 'allowed' : 'denied';
    } finally {
      clearTimeout(timer);
    }
  }

  /** The verdict without asking anyone (policy, allow-list, remembered answer); undefined when a person must decide. */
  private automaticVerdict(request: PermissionRequest): PermissionVerdict | undefined {
    const rule = this.forced[request.category] ?? this.policyRule(request);
    if (rule === 'deny') {
      return { allowed: false, reason: `Permission denied: the policy denies ${request.category} (${request.title}).` };
    }
    if (rule === 'allow') return { allowed: true, how: 'policy' };
    if (request.command !== undefined && commandAllowed(request.command, this.policy.allowCommands)) {
      return { allowed: true, how: 'policy' };
    }
    const known = this.remembered.get(rememberKey(request));
    if (known === undefined) return undefined;
    return known
      ? { allowed: true, how: 'remembered' }
      : { allowed: false, reason: `Permission denied: the user rejected ${request.alwaysScope} for this session.` };
  }

  /** The policy's rule for a request: an execute allowed only by the sandbox covers sandboxed commands alone. */
  private policyRule(request: PermissionRequest): PermissionRule {
    const rule = this.policy.rules[request.category];
    if (request.category === 'execute' && rule === 'allow' && this.policy.executeBySandbox && !request.sandboxed) return 'ask';
    return rule;
  }

  async authorize(request: PermissionRequest, signal: AbortSignal): Promise<PermissionVerdict> {
    const automatic = this.automaticVerdict(request);
    if (automatic && !(automatic.allowed && this.caps?.exhausted(request.category))) {
      if (automatic.allowed) this.caps?.count(request.category);
      return automatic;
    }
    const key = rememberKey(request);
    if (!this.ask) {
      return {
        allowed: false,
        reason: `Permission needed for ${request.title}, and nobody can be asked in this non-interactive run. To allow it, ${this.howToAllow(request.category)}.`,
      };
    }
    const answer = await this.ask(request, signal);
    // A person's yes starts the cap's count over: the next automatic approvals are theirs to cap again.
    if (answer === 'allow_once' || answer === 'allow_always') this.caps?.restart(request.category);
    if (answer === 'allow_always') this.remembered.set(key, true);
    if (answer === 'reject_always') this.remembered.set(key, false);
    if (answer === 'allow_once' || answer === 'allow_always') return { allowed: true, how: 'user' };
    return { allowed: false, reason: `Permission denied by the user: ${request.title}. Do not retry it; ask or try another way.` };
  }
}

/**
 * Caps on approvals nobody was asked for: after `limits[category]` automatic
 * approvals (by the policy or a remembered "always") since the last `reset`
 * or the last yes from a person, the next call of that category is asked
 * again. Front doors reset the counts at each prompt.
 */
export class AutoApproveCaps {
  private readonly counts = new Map<PermissionCategory, number>();

  /** Most automatic approvals per category; a front door may change them between prompts. */
  constructor(public limits: Partial<Record<PermissionCategory, number>>) {}

  exhausted(category: PermissionCategory): boolean {
    const limit = this.limits[category];
    return limit !== undefined && limit > 0 && (this.counts.get(category) ?? 0) >= limit;
  }

  count(category: PermissionCategory): void {
    this.counts.set(category, (this.counts.get(category) ?? 0) + 1);
  }

  restart(category: PermissionCategory): void {
    this.counts.delete(category);
  }

  reset(): void {
    this.counts.clear();
  }
}

/** How strict a rule is: a subagent's may only go up. */
const RANK: Record<PermissionRule, number> = { allow: 0, ask: 1, deny: 2 };

/** For execute requests "always" covers the program (first word); otherwise the whole category. */
function rememberKey(request: PermissionRequest): string {
  if (request.category === 'execute' && request.command !== undefined) {
    return `execute:${programOf(request.command)}`;
  }
  return request.category;
}

export function programOf(command: string): string {
  return command.trim().split(/\s+/, 1)[0] ?? '';
}

/** Shell syntax that chains, substitutes or redirects: a prefix match would not cover what runs. */
const COMPOUND = /[;&|`<>\n]|\$\(/;

export function commandAllowed(command: string, prefixes: readonly string[]): boolean {
  const trimmed = command.trim();
  if (COMPOUND.test(trimmed)) return false;
  return prefixes.some((prefix) => {
    const p = prefix.trim();
    return p !== '' && (trimmed === p || trimmed.startsWith(`${p} `));
  });
}
