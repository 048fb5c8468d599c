/**
 * Who is at the other end of a loopback TCP connection to one of crow's
 * local servers: the user id owning the peer's socket, as the kernel's
 * socket table lists it (/proc/net/tcp on Linux, what identd reads). On a
 * machine shared by several users this tells the person's own browser
 * from another user's process that learnt a URL (a process's arguments
 * are readable by every local user).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { endianness } from 'node:os';

/** The table of IPv4 TCP sockets of this network namespace, as Linux lists it. */
const TCP_TABLE = '/proc/net/tcp';

/**
 * The user id owning the socket at the other end of `socket`, a connection
 * over IPv4 loopback; undefined where the table cannot be read (not Linux)
 * or does not list the peer.
 */
export function loopbackPeerUid(socket: Socket): number | undefined {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (remoteAddress === undefined || remotePort === undefined || localAddress === undefined || localPort === undefined) return undefined;
  let table: string;
  try {
    table = readFileSync(TCP_TABLE, 'utf8');
  } catch {
    return undefined;
  }
  // The peer's own entry: its local end is our remote end, and the other way round.
  const local = tableAddress(remoteAddress, remotePort);
  const remote = tableAddress(localAddress, localPort);
  if (local === undefined || remote === undefined) return undefined;
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid ...
    const fields = line.trim().split(/\s+/);
    if (fields[1] === local && fields[2] === remote && fields[7] !== undefined && /^\d+$/.test(fields[7])) return Number(fields[7]);
  }
  return undefined;
}

/** How the table writes an IPv4 address and port: the address as the host stores it, in hex, then the port in hex. */
function tableAddress(address: string, port: number): string | undefined {
  const bytes = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address.replace(/^::ffff:/, ''))?.slice(1).map(Number);
  if (!bytes) return undefined;
  const ordered = endianness() === 'LE' ? bytes.reverse() : bytes;
  const hex = (value: number, digits: number): string => value.toString(16).toUpperCase().padStart(digits, '0');
  return `${ordered.map((byte) => hex(byte, 2)).join('')}:${hex(port, 4)}`;
}

/**
 * Whether the connection comes from a process of the user running crow.
 * Where the system has no socket table to ask (macOS, Windows: no /proc
 * whose process arguments another user could watch either), true; where
 * it has one, only when it lists the peer as this user's.
 */
export function fromThisUser(socket: Socket): boolean {
  const uid = process.getuid?.();
  if (uid === undefined || !existsSync(TCP_TABLE)) return true;
  return loopbackPeerUid(socket) === uid;
}
