/**
 * What the `[sandbox] allow_domains` proxy lets a command reach, decided on
 * what is reached rather than on what the command says: the name must be
 * an allowed domain, the port an allowed port, a Host header must name that
 * same host (no domain fronting), and the name's addresses must not be
 * loopback, private, link-local, metadata or otherwise not public (the
 * rule of address-guard.ts, web_fetch's too) unless the user allows it. The
 * name is resolved once, here: the connection goes to the address judged.
 */
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { blockedAmong, blockedHostReason } from './address-guard';

export interface ProxyRules {
  domains: readonly string[];
  ports: readonly number[];
  /** Whether an allowed name may lead to a loopback, private, link-local or metadata address. */
  privateAddresses: boolean;
}

/** Every address of a name (node:dns lookup with `all`); injectable so tests can make a name resolve anywhere. */
export type ResolveName = (name: string) => Promise<LookupAddress[]>;

/** Where a request may go: the host as asked (for Host and SNI), its port, and the address to connect to. */
export interface Target {
  host: string;
  port: number;
  address: string;
}

/** Why a request does not go anywhere: the HTTP status and a sentence for the command's output. */
export interface Refusal {
  status: 400 | 403 | 502;
  message: string;
}

/** Whether `host` is one of `domains`: the same name, or a subdomain of a `*.name` entry. IP literals only when listed as such. */
export function domainAllowed(host: string, domains: readonly string[]): boolean {
  const name = bareHost(host);
  return domains.some((domain) => (domain.startsWith('*.') ? name.endsWith(domain.slice(1)) : name === domain));
}

/** A host as compared: lower case, without IPv6 brackets or a final dot. */
export function bareHost(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/**
 * Whether a Host header (`name`, `name:port`, `[v6]:port`) names `host`
 * and `port`. A header without a port names `defaultPort` (80 for a plain
 * request) or, when there is none (a CONNECT's Host), any port.
 */
export function hostHeaderNames(header: string, host: string, port: number, defaultPort?: number): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(header.trim());
  if (!match) return false;
  const given = match[3] === undefined ? defaultPort : Number(match[3]);
  return bareHost(match[1] ?? match[2]!) === bareHost(host) && (given === undefined || given === port);
}

/** The refusal of a Host header that names another host than the request's target. */
export function hostMismatch(header: string, target: string): Refusal {
  return {
    status: 400,
    message: `crow: the request is for ${target} but its Host header says ${header}: the sandbox's proxy sends a request only to the host it is for. Send the request to the host you mean.`,
  };
}

/** Decides on `host`:`port` (the name, then its addresses, then the port); the target to connect to, or the refusal to answer with. */
export async function judgeTarget(host: string, port: number, rules: ProxyRules, resolve: ResolveName): Promise<Target | Refusal> {
  const name = bareHost(host);
  if (!domainAllowed(name, rules.domains)) {
    return {
      status: 403,
      message: `crow: the sandbox lets commands reach only the domains of [sandbox] allow_domains, and ${name} is not one of them. If the command needs it, ask the user to add it there.`,
    };
  }
  const early = rules.privateAddresses ? undefined : blockedHostReason(name);
  if (early !== undefined) return privateRefusal(`${name} is ${early}`);
  let addresses: LookupAddress[];
  try {
    addresses = isIP(name) !== 0 ? [{ address: name, family: isIP(name) }] : await resolve(name);
  } catch (err) {
    return { status: 502, message: `crow: could not resolve ${name}: ${(err as Error).message}` };
  }
  const blocked = rules.privateAddresses ? undefined : blockedAmong(addresses);
  if (blocked) return privateRefusal(`${name} resolves to ${blocked.address}, ${blocked.reason}`);
  const [first] = addresses;
  if (!first) return { status: 502, message: `crow: ${name} has no address` };
  if (!rules.ports.includes(port)) {
    return {
      status: 403,
      message: `crow: the sandbox's proxy reaches ${name} on port${rules.ports.length === 1 ? '' : 's'} ${rules.ports.join(', ')} only, not ${port}. If the command needs that port, ask the user to add ${port} to [sandbox] allow_ports.`,
    };
  }
  return { host: name, port, address: first.address };
}

function privateRefusal(what: string): Refusal {
  return {
    status: 403,
    message: `crow: ${what}. The sandbox's proxy does not reach loopback, private, link-local or cloud metadata addresses; if the command needs to, ask the user to set allow_private_addresses = true under [sandbox].`,
  };
}

/** The default ResolveName: node:dns, required on first use (not when the tools load). */
export const resolveWithDns: ResolveName = (name) => (require('node:dns') as typeof import('node:dns')).promises.lookup(name, { all: true });

export function isRefusal(decision: Target | Refusal): decision is Refusal {
  return 'status' in decision;
}
