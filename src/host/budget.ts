/**
 * The spending limits of one prompt ([limits] in config.toml, a front
 * door's flags or settings over it): the engine charges it every model call
 * of the prompt, its subagents' included, and checks it before each one.
 */
import type { Limits } from '../config/settings';
import type { Budget, NextCall } from '../vocabulary/budget';

/** The config.toml key of each limit, as messages name it. */
export const LIMIT_KEYS: Record<keyof Limits, string> = {
  maxCostPerPrompt: 'limits.max_cost_per_prompt',
  maxCostPerSession: 'limits.max_cost_per_session',
  maxTokensPerPrompt: 'limits.max_tokens_per_prompt',
};

/** How a door tells the person to raise a limit, e.g. "pass --max-cost" or "raise crow.limits.maxCostPerPrompt"; default: config.toml. */
export type HowToRaise = (limit: keyof Limits) => string;

export const RAISE_IN_CONFIG: HowToRaise = (limit) => `raise ${LIMIT_KEYS[limit]} in config.toml`;

export class PromptBudget implements Budget {
  private tokens = 0;
  private cost = 0;
  private readonly unpriced = new Set<string>();

  constructor(
    private readonly limits: Limits,
    /** What the session cost before this prompt (priced calls only). */
    private readonly sessionCostBefore: number,
    private readonly howToRaise: HowToRaise,
    /** Told once per model whose calls have no prices while a cost limit is set: they count as nothing. */
    private readonly unpricedModel: (model: string) => void,
  ) {}

  /** The limits in force, or undefined when none is set (nothing to check). */
  static of(limits: Limits | undefined): Limits | undefined {
    if (!limits) return undefined;
    const set = Object.entries(limits).filter(([, value]) => typeof value === 'number');
    return set.length > 0 ? (Object.fromEntries(set) as Limits) : undefined;
  }

  get checksCost(): boolean {
    return this.limits.maxCostPerPrompt !== undefined || this.limits.maxCostPerSession !== undefined;
  }

  charge(call: { model: string; tokens: number; costUsd: number | undefined }): void {
    this.tokens += call.tokens;
    if (call.costUsd !== undefined) this.cost += call.costUsd;
    else if (this.checksCost && !this.unpriced.has(call.model)) {
      this.unpriced.add(call.model);
      this.unpricedModel(call.model);
    }
  }

  exceeded(call?: NextCall): string | undefined {
    return this.reached() ?? (call ? this.passedBy(call) : undefined);
  }

  /** A limit the prompt's calls so far have reached. */
  private reached(): string | undefined {
    const { maxTokensPerPrompt, maxCostPerPrompt, maxCostPerSession } = this.limits;
    if (maxTokensPerPrompt !== undefined && this.tokens >= maxTokensPerPrompt) {
      return `Stopped: this prompt used ${this.tokens.toLocaleString('en-US')} tokens, reaching its limit of ${maxTokensPerPrompt.toLocaleString('en-US')} (${LIMIT_KEYS.maxTokensPerPrompt}). ${this.goOn('maxTokensPerPrompt')}`;
    }
    if (maxCostPerPrompt !== undefined && this.cost >= maxCostPerPrompt) {
      return `Stopped: this prompt cost ${dollars(this.cost)}, reaching its limit of ${dollars(maxCostPerPrompt)} (${LIMIT_KEYS.maxCostPerPrompt}). ${this.goOn('maxCostPerPrompt')}`;
    }
    const session = this.sessionCostBefore + this.cost;
    if (maxCostPerSession !== undefined && session >= maxCostPerSession) {
      return `Stopped: this session cost ${dollars(session)}, reaching its limit of ${dollars(maxCostPerSession)} (${LIMIT_KEYS.maxCostPerSession}). ${this.goOn('maxCostPerSession')}`;
    }
    return undefined;
  }

  /** A limit the next call would pass by what it reads alone, whatever it answers. */
  private passedBy(call: NextCall): string | undefined {
    const { maxTokensPerPrompt, maxCostPerPrompt, maxCostPerSession } = this.limits;
    const before = `Stopped before the next model call: it reads about`;
    if (maxTokensPerPrompt !== undefined && this.tokens + call.tokens > maxTokensPerPrompt) {
      return (
        `${before} ${call.tokens.toLocaleString('en-US')} tokens, which would take this prompt (${this.tokens.toLocaleString('en-US')} so far) past its limit of ` +
        `${maxTokensPerPrompt.toLocaleString('en-US')} (${LIMIT_KEYS.maxTokensPerPrompt}). ${this.goOn('maxTokensPerPrompt')}`
      );
    }
    if (call.minCostUsd === undefined) return undefined;
    const spend = (limit: keyof Limits, spent: number, max: number, what: string): string =>
      `${before} ${call.tokens.toLocaleString('en-US')} tokens, at least ${dollars(call.minCostUsd!)}, which would take this ${what} (${dollars(spent)} so far) past its limit of ${dollars(max)} (${LIMIT_KEYS[limit]}). ${this.goOn(limit)}`;
    if (maxCostPerPrompt !== undefined && this.cost + call.minCostUsd > maxCostPerPrompt) return spend('maxCostPerPrompt', this.cost, maxCostPerPrompt, 'prompt');
    const session = this.sessionCostBefore + this.cost;
    if (maxCostPerSession !== undefined && session + call.minCostUsd > maxCostPerSession) return spend('maxCostPerSession', session, maxCostPerSession, 'session');
    return undefined;
  }

  private goOn(limit: keyof Limits): string {
    return `${capitalised(this.howToRaise(limit))}, then send a prompt (e.g. "continue") to go on.`;
  }
}

/** The notice for a model without prices while a cost limit is set. */
export function unpricedNotice(model: string): string {
  return (
    `A cost limit is set, but ${model} has no prices configured, so its calls count as $0 against it. ` +
    `Set input_per_mtok and output_per_mtok under [providers.NAME.models."${model}"] in config.toml to count them.`
  );
}

function dollars(amount: number): string {
  return `$${amount < 0.01 && amount > 0 ? amount.toFixed(4) : amount.toFixed(2)}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
