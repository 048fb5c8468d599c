/**
 * The permission policy. Every tool declares the category of what it does;
 * a policy per agent says allow, ask or deny for each category; "ask" goes
 * to the front door (ACP permission request, VS Code prompt, CLI prompt)
 * through an AskFn. "Always" answers are remembered for the session.
 * Changes to protected paths are asked every time (protected-paths.ts).
 */
import { isAbsolute, join, resolve } from 'node:path';
import { type CommandEntry, type CommandJudgement, covers, entryWithin, judgeCommand, parseEntry, uncoveredReason } from './command-rules';
import { implicitRepositoriesMet, implicitRepositoryNote } from './implicit-repository';
import { ProtectedPaths } from './protected-paths';
import { RememberedAnswers, type StandingRule } from './remembered-answers';

export { RememberedAnswers };
export { AutoApproveCaps } from './auto-approve-caps';
import type { AutoApproveCaps } from './auto-approve-caps';
export type { AskFn, ApprovalOutcome, EditableArguments, PermissionAnswer, PermissionReply, PermissionRequest, PermissionVerdict } from './permission-request';
import type { AskFn, ApprovalOutcome, PermissionReply, PermissionRequest, PermissionVerdict } from './permission-request';
import { PERMISSION_CATEGORIES, type PermissionCategory, type PermissionPolicy, type PermissionRule } from '../vocabulary/permission-types';

export interface PermissionGateOptions {
  policy: PermissionPolicy;
  /** Asks a person; without it (non-interactive runs) "ask" becomes a denial. */
  ask?: AskFn;
  /** How to allow a category when nobody can be asked, e.g. "pass --allow execute". */
  howToAllow?: (category: PermissionCategory) => string;
  /** Rules the user set for this session (e.g. --allow write) that win over any agent's policy. */
  forced?: Partial<Record<PermissionCategory, PermissionRule>>;
  /** "Always" answers, shared by every agent of the session. */
  remembered?: RememberedAnswers;
  /** Caps on automatic approvals, shared by every agent of the session; none when absent. */
  caps?: AutoApproveCaps;
  /** The workspace's protected paths; default: judged relative to the process's folder, without the user's config folder. */
  protectedPaths?: ProtectedPaths;
  /**
   * Why no sandbox can contain commands on this machine (Windows, macOS: see
   * platformWithoutSandbox), when none can: then every command that does not
   * run in a sandbox is asked every time, as a destructive call is: no
   * policy rule, --allow, allow-list entry, "always" answer or hook lets it
   * run unasked, and nobody to ask means no. Denials still hold.
   */
  noSandbox?: string;
}

/**
 * Decides tool calls for one session: protected paths first (always asked),
 * then the policy's and remembered denials, then a pre_tool_use hook's
 * allow or ask, then the policy, then remembered answers, then the person. Without an
 * AskFn (non-interactive runs) "ask" becomes a denial whose reason says how
 * to allow it.
 */
export class PermissionGate {
  readonly policy: PermissionPolicy;
  private readonly ask: AskFn | undefined;
  private readonly howToAllow: (category: PermissionCategory) => string;
  private readonly forced: Partial<Record<PermissionCategory, PermissionRule>>;
  private readonly remembered: RememberedAnswers;
  private readonly caps: AutoApproveCaps | undefined;
  private readonly protectedPaths: ProtectedPaths;
  private readonly noSandbox: string | undefined;

  /** The session's standing "always" and "never" answers, for a door that lists them with Revoke. */
  standingRules(): StandingRule[] {
    return this.remembered.standing();
  }

  /** Takes a standing answer back (see RememberedAnswers.revoke). */
  revokeRule(id: string): boolean {
    return this.remembered.revoke(id);
  }

  constructor(options: PermissionGateOptions) {
    this.policy = options.policy;
    this.ask = options.ask;
    this.howToAllow = options.howToAllow ?? ((c) => `allow "${c}" in the permission settings`);
    this.forced = options.forced ?? {};
    this.remembered = options.remembered ?? new RememberedAnswers();
    this.caps = options.caps;
    this.protectedPaths = options.protectedPaths ?? new ProtectedPaths();
    this.noSandbox = options.noSandbox;
  }

  /** A gate like this one (same asker, remembered answers, caps, protected paths) with some options replaced. */
  private with(options: Partial<PermissionGateOptions>): PermissionGate {
    return new PermissionGate({
      policy: this.policy,
      ...(this.ask ? { ask: this.ask } : {}),
      howToAllow: this.howToAllow,
      forced: this.forced,
      remembered: this.remembered,
      ...(this.caps ? { caps: this.caps } : {}),
      protectedPaths: this.protectedPaths,
      ...(this.noSandbox !== undefined ? { noSandbox: this.noSandbox } : {}),
      ...options,
    });
  }

  /**
   * The gate for one agent of the session: its own policy, under the
   * session's forced rules, sharing the session's remembered answers and asker.
   */
  forPolicy(policy: PermissionPolicy): PermissionGate {
    return this.with({ policy });
  }

  /** The gate with `rules` forced for the rest of the session. */
  forcing(rules: Partial<Record<PermissionCategory, PermissionRule>>): PermissionGate {
    return this.with({ forced: { ...this.forced, ...rules } });
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
   * and `policy`; of its command entries only those that extend one of this
   * gate's (all of them where this gate allows every command); sharing the
   * asker, the remembered answers and the protected paths. The session's
   * forced rules (crow run --allow, an evaluation's grants) carry over: a
   * subagent holds what its parent holds, whatever the source of the grant.
   * Checked at every call.
   */
  narrow(policy: PermissionPolicy): PermissionGate {
    const mine = this.effectiveRules();
    const rules = { ...mine };
    for (const category of PERMISSION_CATEGORIES) {
      if (RANK[policy.rules[category]] > RANK[mine[category]]) rules[category] = policy.rules[category];
    }
    const parentEntries = entriesOf(this.policy.allowCommands);
    const allowCommands =
      mine.execute === 'allow'
        ? policy.allowCommands
        : policy.allowCommands.filter((text) => {
            const entry = parseEntry(text);
            return entry !== undefined && entryWithin(entry, parentEntries);
          });
    const bySandbox = rules.execute === 'allow' && this.forced.execute === undefined && (this.policy.executeBySandbox || policy.executeBySandbox);
    return this.with({ policy: { rules, allowCommands, ...(bySandbox ? { executeBySandbox: true } : {}) } });
  }

  /**
   * Asks a person once, outside any policy (an approval gate), waiting at
   * most `timeoutMs`. Nobody to ask counts as `unavailable`.
   */
  async approve(request: PermissionRequest, signal: AbortSignal, timeoutMs: number): Promise<ApprovalOutcome['decision']> {
    return (await this.askOnce(request, signal, timeoutMs)).decision;
  }

  /**
   * As approve, with the arguments a person allowed instead when the
   * request was `editable` and they changed them (checked again here).
   */
  async askOnce(request: PermissionRequest, signal: AbortSignal, timeoutMs: number): Promise<ApprovalOutcome> {
    if (!this.ask) return { decision: 'unavailable' };
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
      if (answer === 'timeout') return { decision: 'timeout' };
      if (typeof answer === 'object' && 'deniedBecause' in answer) return { decision: 'denied' };
      if (typeof answer === 'object') {
        const fits = request.editable !== undefined && request.editable.check(answer.modified) === undefined;
        return fits ? { decision: 'allowed', modified: answer.modified } : { decision: 'denied' };
      }
      return { decision: answer === 'allow_once' || answer === 'allow_always' ? 'allowed' : 'denied' };
    } finally {
      clearTimeout(timer);
    }
  }

  async authorize(request: PermissionRequest, signal: AbortSignal): Promise<PermissionVerdict> {
    const judgement = request.command !== undefined ? judgeCommand(request.command) : undefined;
    const guarded = this.protectedTargets(request, judgement);
    if (guarded.length > 0) return this.authorizeProtected(request, guarded, judgement, signal);
    const uncontained = this.uncontained(request);
    if (request.hook === 'allow' && !request.destructive && !uncontained) return this.deniedWithoutAsking(request, judgement) ?? { allowed: true, how: 'hook' };
    const planted = this.implicitRepositories(request, judgement);
    const asksAlways = request.hook === 'ask' || request.destructive === true || uncontained;
    const automatic = asksAlways ? this.deniedWithoutAsking(request, judgement) : this.automaticVerdict(request, judgement, planted);
    if (automatic && !(automatic.allowed && this.caps?.exhausted(request.category))) {
      if (automatic.allowed) this.caps?.count(request.category);
      return automatic;
    }
    if (!this.ask) return { allowed: false, reason: this.nobodyToAsk(request, judgement, planted) };
    const everyTime = [...(planted === undefined ? [] : [planted]), ...(uncontained ? [`no sandbox contains commands here (${this.noSandbox})`] : [])];
    const asked = everyTime.length === 0 ? request : { ...request, alwaysScope: `${request.alwaysScope}; asked every time: ${everyTime.join('; ')}` };
    return this.answered(request, judgement, await this.ask(asked, signal));
  }

  /** Whether `request` is a command that runs uncontained on a machine where no sandbox exists: asked every time. */
  private uncontained(request: PermissionRequest): boolean {
    return this.noSandbox !== undefined && request.command !== undefined && request.sandboxed !== true;
  }

  /** Why a call that needs a person's answer is denied in a run where nobody can answer, and how to allow it. */
  private nobodyToAsk(request: PermissionRequest, judgement: CommandJudgement | undefined, planted: string | undefined): string {
    if (request.destructive) {
      return `Not run: ${request.title} says it may destroy data, so a person is asked every time whatever the settings, and nobody can be asked in this non-interactive run. Nothing was run; if it is needed, tell the user what to run and why.`;
    }
    if (this.uncontained(request)) {
      return `Not run: ${request.title}. No sandbox contains commands on this machine (${this.noSandbox}), so a person is asked before every command whatever the settings, and nobody can be asked in this non-interactive run. Nothing was run; if it is needed, tell the user what to run and why.`;
    }
    if (request.hook === 'ask') {
      return `Not run: a pre_tool_use hook asks for approval of ${request.title}, and nobody can be asked in this non-interactive run. To run such calls here, make the hook answer "allow" or nothing.`;
    }
    const why = planted === undefined ? this.notCoveredNote(judgement) : ` (${planted[0]!.toUpperCase()}${planted.slice(1)}.)`;
    return `Permission needed for ${request.title}, and nobody can be asked in this non-interactive run. To allow it, ${this.howToAllow(request.category)}.${why}`;
  }

  /**
   * Why the command line is asked whatever entries cover it: its git would
   * find a repository nothing protects (see implicit-repository.ts);
   * undefined when it would not.
   */
  private implicitRepositories(request: PermissionRequest, judgement: CommandJudgement | undefined): string | undefined {
    if (request.category !== 'execute' || !judgement) return undefined;
    const root = this.protectedPaths.root;
    const found = implicitRepositoriesMet(judgement, resolve(root, request.cwd ?? '.'));
    return found.length > 0 ? implicitRepositoryNote(found, root) : undefined;
  }

  /** A call that changes protected paths: asked every time; denied, saying why, when nobody can be asked. */
  private async authorizeProtected(
    request: PermissionRequest,
    guarded: string[],
    judgement: CommandJudgement | undefined,
    signal: AbortSignal,
  ): Promise<PermissionVerdict> {
    const denied = this.deniedWithoutAsking(request, judgement);
    if (denied) return denied;
    const listed = guarded.join(', ');
    if (!this.ask) {
      return {
        allowed: false,
        reason:
          `Permission needed for ${request.title}: it would change ${listed}, a protected path (.crow, .git, .vscode, git's hooks and config files ` +
          `and Crow's config folder decide what Crow, git and the editor run), which is asked every time whatever the settings, and nobody can be asked in this ` +
          `non-interactive run. Nothing was changed; if the change is needed, tell the user what to change and why.`,
      };
    }
    const asked: PermissionRequest = {
      ...request,
      protectedPaths: guarded,
      alwaysScope: `${request.alwaysScope}, except changes to ${listed} (protected: asked every time)`,
    };
    return this.answered(request, judgement, await this.ask(asked, signal));
  }

  /**
   * The verdict on a call the person allowed with arguments they edited
   * (`edited`, built from them as the tool builds any request): the
   * policy's denials and remembered "never"s still hold, and an edit that
   * reaches protected paths the first request did not is asked about again
   * as it now stands (this time without offering another edit).
   */
  async confirmEdited(first: PermissionRequest, edited: PermissionRequest, signal: AbortSignal): Promise<PermissionVerdict> {
    const judgement = edited.command !== undefined ? judgeCommand(edited.command) : undefined;
    const denied = this.deniedWithoutAsking(edited, judgement);
    if (denied && !denied.allowed) return { ...denied, reason: `${denied.reason.replace(/\.$/, '')} (the call as the user edited it).` };
    const before = new Set(this.protectedTargets(first, first.command !== undefined ? judgeCommand(first.command) : undefined));
    const guarded = this.protectedTargets(edited, judgement);
    if (guarded.some((path) => !before.has(path))) {
      const { editable: _editable, ...again } = edited;
      return this.authorizeProtected(again, guarded, judgement, signal);
    }
    return { allowed: true, how: 'user', answer: 'allow_once' };
  }

  /** Records an "always" or "never" answer and turns the answer into a verdict. */
  private answered(request: PermissionRequest, judgement: CommandJudgement | undefined, reply: PermissionReply): PermissionVerdict {
    // Arguments sent back as they were are a plain yes: the model is not told of an edit that changed nothing.
    if (typeof reply === 'object' && 'deniedBecause' in reply) {
      const because = reply.deniedBecause.trim();
      return { allowed: false, reason: `The user denied it${because ? `, and says: ${because}` : '.'}`, answer: 'reject_once' };
    }
    if (typeof reply === 'object' && request.editable && sameJson(reply.modified, request.editable.arguments)) return this.answered(request, judgement, 'allow_once');
    if (typeof reply === 'object') {
      // Only for an editable request, and only arguments that fit: a door that sent anything else gets a no.
      const problem = request.editable ? request.editable.check(reply.modified) : 'this call cannot be edited';
      if (problem !== undefined) {
        return { allowed: false, reason: `Not run: the edited arguments were not accepted (${problem}).`, answer: 'reject_once' };
      }
      this.caps?.restart(request.category);
      return { allowed: true, how: 'user', answer: 'allow_once', modified: reply.modified };
    }
    const answer = reply;
    // A person's yes starts the cap's count over: the next automatic approvals are theirs to cap again.
    if (answer === 'allow_once' || answer === 'allow_always') this.caps?.restart(request.category);
    // A destructive or uncontained call's "always" is only this once: remembering it would allow its whole category or command.
    if ((answer === 'allow_always' && !request.destructive && !this.uncontained(request)) || answer === 'reject_always') {
      const allowed = answer === 'allow_always';
      if (request.category === 'execute' && request.command !== undefined && judgement) this.remembered.commands(request.command, judgement, allowed);
      else this.remembered.category(request.category, allowed);
    }
    if (answer === 'allow_once' || answer === 'allow_always') return { allowed: true, how: 'user', answer };
    return { allowed: false, reason: `Permission denied by the user: ${request.title}. Do not retry it; ask or try another way.`, answer };
  }

  /**
   * The verdict without asking anyone (policy, allow-list, remembered
   * answer); undefined when a person must decide. Entries never cover a
   * line whose git meets a repository nothing protects (`planted`).
   */
  private automaticVerdict(request: PermissionRequest, judgement: CommandJudgement | undefined, planted: string | undefined): PermissionVerdict | undefined {
    const denied = this.deniedWithoutAsking(request, judgement);
    if (denied) return denied;
    const rule = this.forced[request.category] ?? this.policyRule(request);
    if (rule === 'allow') return { allowed: true, how: 'policy' };
    if (request.category === 'execute' && judgement) {
      if (planted !== undefined) return undefined;
      const configured = entriesOf(this.policy.allowCommands);
      if (covers(configured, judgement)) return { allowed: true, how: 'policy', coveredByEntries: true };
      if (covers([...configured, ...this.remembered.allowedCommands()], judgement)) return { allowed: true, how: 'remembered', coveredByEntries: true };
      return undefined;
    }
    return this.remembered.categoryAnswer(request.category) ? { allowed: true, how: 'remembered' } : undefined;
  }

  /** The policy's rule for a request: an execute allowed only by the sandbox covers sandboxed commands alone. */
  private policyRule(request: PermissionRequest): PermissionRule {
    const rule = this.policy.rules[request.category];
    if (request.category === 'execute' && rule === 'allow' && this.policy.executeBySandbox && !request.sandboxed) return 'ask';
    return rule;
  }

  /** A denial by the policy or by a remembered "never"; undefined when neither applies. */
  private deniedWithoutAsking(request: PermissionRequest, judgement: CommandJudgement | undefined): PermissionVerdict | undefined {
    const rule = this.forced[request.category] ?? this.policyRule(request);
    if (rule === 'deny') {
      return { allowed: false, reason: `Permission denied: the policy denies ${request.category} (${request.title}).` };
    }
    if (request.category === 'execute' && request.command !== undefined && judgement) {
      const rejected = this.remembered.rejection(request.command, judgement);
      return rejected === undefined ? undefined : { allowed: false, reason: `Permission denied: the user rejected ${rejected} for this session.` };
    }
    return this.remembered.categoryAnswer(request.category) === false
      ? { allowed: false, reason: `Permission denied: the user rejected ${request.alwaysScope} for this session.` }
      : undefined;
  }

  /** The protected paths a call would change: a write's paths, or what a command's redirections and writers target. */
  private protectedTargets(request: PermissionRequest, judgement: CommandJudgement | undefined): string[] {
    if (request.category === 'write') return this.protectedPaths.find(request.paths.map((path) => ({ path })));
    if (!judgement || judgement.writes.length === 0) return [];
    const start = { path: request.cwd ?? '.' };
    const bases = [start];
    let current = start as { path: string; tilde?: boolean };
    for (const dir of judgement.dirs) {
      current = isAbsolute(dir.path) || dir.tilde ? dir : { path: join(current.path, dir.path), ...(current.tilde ? { tilde: true } : {}) };
      bases.push(current, isAbsolute(dir.path) || dir.tilde ? dir : { path: join(start.path, dir.path) });
    }
    return this.protectedPaths.find(judgement.writes, bases);
  }

  /** For a command the allow-list does not cover, why not, for the model and the person reading the denial. */
  private notCoveredNote(judgement: CommandJudgement | undefined): string {
    if (!judgement || this.policy.allowCommands.length === 0) return '';
    const reason = uncoveredReason(entriesOf(this.policy.allowCommands), judgement);
    return reason ? ` (The allowed commands do not cover it: ${reason}.)` : '';
  }
}

/** Whether two JSON values are the same, keys in any order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

function entriesOf(texts: readonly string[]): CommandEntry[] {
  return texts.flatMap((text) => {
    const entry = parseEntry(text);
    return entry ? [entry] : [];
  });
}

/** How strict a rule is: a subagent's may only go up. */
const RANK: Record<PermissionRule, number> = { allow: 0, ask: 1, deny: 2 };
