/**
 * Who may connect to `crow acp-bridge`. A client of the bridge drives an
 * agent that acts as the user, so every connection must present the
 * bridge's token (a `token` query parameter, for browsers, which cannot set
 * headers; or `Authorization: Bearer TOKEN`), and a connection that comes
 * with an Origin (every browser page sends one) must come from an origin
 * the user listed. On loopback, the Host header must name loopback too, so
 * a page that renamed its own site to 127.0.0.1 (DNS rebinding) is refused
 * however its Origin reads. Guessing is slowed: past a burst, refused
 * attempts are budgeted, and while the budget is spent every attempt is
 * refused unchecked. A token file must be the user's own and private.
 * Web pages of other sites, and other local users without the token, get
 * nothing.
 */
import type { IncomingMessage } from 'node:http';
import { readPrivateFile } from '../../config/private-files';
import { sameSecret } from './access-token';
import { UsageError } from './cli-io';

/** Shorter tokens can be guessed by whoever can try many connections. */
const MIN_TOKEN_CHARS = 16;

export interface BridgeAccess {
  token: string;
  /** Origins (scheme://host:port) whose pages may connect; none by default. */
  origins: ReadonlySet<string>;
  /** Host header values (host:port, lower case) the bridge answers to; undefined when it listens beyond loopback (then any). */
  hosts?: ReadonlySet<string>;
  /** Refused attempts allowed before every attempt is refused for a while. */
  budget: RefusalBudget;
}

/** Why a connection is refused, as the HTTP answer to its upgrade request. */
export interface Refusal {
  status: 401 | 403 | 429;
  reason: string;
}

/**
 * The token in `path` (surrounding whitespace ignored); a UsageError says
 * what is wrong with the file. The file must be the user's own, read as
 * Crow reads what it trusts (config/private-files.ts): whoever can read or
 * replace the token drives the agent as the user.
 */
export function readTokenFile(path: string): string {
  const read = readPrivateFile(path);
  if ('missing' in read) throw new UsageError(`--token-file ${path}: there is no such file.`);
  if ('problem' in read) {
    throw new UsageError(`--token-file: ${read.problem}; whoever can read or change the token drives the agent as you. Give a file of your own that only you can read (chmod 600 ${path}), not a link.`);
  }
  const token = read.bytes.toString('utf8').trim();
  if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
    throw new UsageError(
      `--token-file ${path} must hold one token of at least ${MIN_TOKEN_CHARS} characters and no spaces, e.g. made with: (umask 077; head -c 24 /dev/urandom | base64 > ${path})`,
    );
  }
  return token;
}

/** --allow-origin values as origins; a UsageError names one that is not an http(s) origin. */
export function allowedOrigins(values: readonly string[]): Set<string> {
  return new Set(
    values.map((value) => {
      const url = URL.parse(value);
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        throw new UsageError(`--allow-origin ${value}: give the origin of the page that may connect, e.g. http://localhost:3000`);
      }
      return url.origin;
    }),
  );
}

/**
 * The Host header values a bridge listening on `address`:`port` answers
 * to: loopback names only when it listens on loopback; undefined (any)
 * when it listens beyond, where it cannot know the names it is reached by.
 */
export function answeringHosts(address: string, port: number): Set<string> | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!isLoopback(bare)) return undefined;
  const literal = bare.includes(':') ? `[${bare}]` : bare;
  return new Set([literal, 'localhost', '127.0.0.1', '[::1]'].map((host) => `${host.toLowerCase()}:${port}`));
}

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\.\d+\.\d+\.\d+$/.test(address);
}

/**
 * Refused attempts: a burst of `burst`, then `perSecond`. A wrong token
 * answered at once would tell a guesser as fast as it asks; once the budget
 * is spent, every attempt (the right token too) is refused unchecked until
 * it refills, so guesses go no faster than `perSecond`.
 */
export class RefusalBudget {
  private left: number;
  private last: number;
  /** Set while the budget is spent; the caller logs the first refusal of such a spell only. */
  private spent = false;

  constructor(
    private readonly burst = 20,
    private readonly perSecond = 1,
    private readonly now: () => number = Date.now,
  ) {
    this.left = burst;
    this.last = now();
  }

  /** Whether an attempt may be checked now. */
  open(): boolean {
    const now = this.now();
    this.left = Math.min(this.burst, this.left + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.left >= 1) this.spent = false;
    return this.left >= 1;
  }

  /** Counts a refused attempt. */
  spend(): void {
    this.left -= 1;
  }

  /** True the first time it is asked during a spell of refusing everything: log that one, not each. */
  firstOfSpell(): boolean {
    if (this.spent) return false;
    this.spent = true;
    return true;
  }

  /** Seconds until the next attempt can be checked. */
  get waitSeconds(): number {
    return Math.max(1, Math.ceil((1 - this.left) / this.perSecond));
  }
}

/** Undefined when the upgrade request may become a connection; else the answer that refuses it. */
export function refusal(request: IncomingMessage, access: BridgeAccess): Refusal | undefined {
  const { budget } = access;
  if (!budget.open()) {
    return { status: 429, reason: `too many refused connections in a short time (is someone guessing the token?): every connection is refused for ${budget.waitSeconds} s` };
  }
  const found = judged(request, access);
  if (found) budget.spend();
  return found;
}

function judged(request: IncomingMessage, access: BridgeAccess): Refusal | undefined {
  const host = (request.headers.host ?? '').toLowerCase();
  if (access.hosts && !access.hosts.has(host)) {
    return { status: 403, reason: `the request names the host "${request.headers.host ?? ''}", not the bridge's loopback address (a page that renamed its site to this machine?)` };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !access.origins.has(URL.parse(origin)?.origin ?? origin)) {
    return { status: 403, reason: `the page at ${origin} is not allowed (allow it with --allow-origin ${origin})` };
  }
  const given = presentedToken(request);
  if (given === undefined) return { status: 401, reason: 'no token (give ?token=... or an Authorization: Bearer header)' };
  if (!sameSecret(given, access.token)) return { status: 401, reason: 'a wrong token' };
  return undefined;
}

function presentedToken(request: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return bearer;
  return new URL(request.url ?? '/', 'ws://bridge').searchParams.get('token') ?? undefined;
}
