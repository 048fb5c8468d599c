/**
 * The server name a TLS client asks for (SNI, RFC 6066 section 3), read from
 * the ClientHello that opens the connection (RFC 8446 section 4.1.2; the
 * same layout since TLS 1.0): so the domain proxy can tell that a tunnel to
 * an allowed host is not used to ask that host's address for another site.
 * Only the first handshake message is read; nothing is decrypted.
 */

/** A ClientHello is a few hundred bytes, a few KB with post-quantum key shares; more is no ClientHello of a real client. */
const MAX_HELLO_BYTES = 64 * 1024;

const HANDSHAKE_RECORD = 0x16;
const CLIENT_HELLO = 0x01;
const SERVER_NAME_EXTENSION = 0x0000;
const HOST_NAME = 0x00;

/** What the bytes so far say: wait for more, not TLS (or malformed), or the hello's server name (undefined when it names none). */
export type HelloReading = { kind: 'more' } | { kind: 'not-tls' } | { kind: 'hello'; serverName: string | undefined };

/** Reads the ClientHello at the start of `bytes`, which may come in several handshake records. */
export function readClientHello(bytes: Buffer): HelloReading {
  if (bytes.length === 0) return { kind: 'more' };
  if (bytes[0] !== HANDSHAKE_RECORD) return { kind: 'not-tls' };
  const handshake = handshakeBytes(bytes);
  if (handshake === 'more' || handshake === 'not-tls') return { kind: handshake };
  if (handshake[0] !== CLIENT_HELLO) return { kind: 'not-tls' };
  const serverName = serverNameOf(handshake.subarray(4, 4 + handshake.readUIntBE(1, 3)));
  return serverName === 'not-tls' ? { kind: 'not-tls' } : { kind: 'hello', serverName };
}

/** The first handshake message, joined from the records it spans. */
function handshakeBytes(bytes: Buffer): Buffer | 'more' | 'not-tls' {
  const parts: Buffer[] = [];
  let have = 0;
  let at = 0;
  for (;;) {
    if (have >= 4) {
      const joined = Buffer.concat(parts);
      const needed = 4 + joined.readUIntBE(1, 3);
      if (needed > MAX_HELLO_BYTES) return 'not-tls';
      if (have >= needed) return joined.subarray(0, needed);
    }
    if (at + 5 > bytes.length) return bytes.length > MAX_HELLO_BYTES ? 'not-tls' : 'more';
    if (bytes[at] !== HANDSHAKE_RECORD) return 'not-tls';
    const length = bytes.readUInt16BE(at + 3);
    if (at + 5 + length > bytes.length) return bytes.length > MAX_HELLO_BYTES ? 'not-tls' : 'more';
    parts.push(bytes.subarray(at + 5, at + 5 + length));
    have += length;
    at += 5 + length;
  }
}

/** The host_name of the server_name extension of a ClientHello's body; 'not-tls' when the body does not parse. */
function serverNameOf(body: Buffer): string | undefined | 'not-tls' {
  const reader = new Reader(body);
  reader.skip(2 + 32); // legacy_version, random
  reader.skip(reader.uint(1)); // legacy_session_id
  reader.skip(reader.uint(2)); // cipher_suites
  reader.skip(reader.uint(1)); // legacy_compression_methods
  if (reader.failed) return 'not-tls';
  if (reader.left === 0) return undefined;
  const extensions = new Reader(reader.bytes(reader.uint(2)));
  while (!extensions.failed && extensions.left > 0) {
    const type = extensions.uint(2);
    const data = new Reader(extensions.bytes(extensions.uint(2)));
    if (type !== SERVER_NAME_EXTENSION) continue;
    const names = new Reader(data.bytes(data.uint(2)));
    while (!names.failed && names.left > 0) {
      const nameType = names.uint(1);
      const name = names.bytes(names.uint(2));
      if (nameType === HOST_NAME && !names.failed) return name.toString('latin1');
    }
    return names.failed || data.failed ? 'not-tls' : undefined;
  }
  return extensions.failed || reader.failed ? 'not-tls' : undefined;
}

/** Reads big-endian fields off a buffer; reading past its end sets `failed` instead of throwing. */
class Reader {
  failed = false;
  private at = 0;

  constructor(private readonly buffer: Buffer) {}

  get left(): number {
    return this.buffer.length - this.at;
  }

  uint(size: 1 | 2): number {
    if (this.left < size) return this.fail(0);
    const value = size === 1 ? this.buffer[this.at]! : this.buffer.readUInt16BE(this.at);
    this.at += size;
    return value;
  }

  bytes(length: number): Buffer {
    if (this.left < length) return this.fail(Buffer.alloc(0));
    const slice = this.buffer.subarray(this.at, this.at + length);
    this.at += length;
    return slice;
  }

  skip(length: number): void {
    this.bytes(length);
  }

  private fail<T>(value: T): T {
    this.failed = true;
    this.at = this.buffer.length;
    return value;
  }
}
