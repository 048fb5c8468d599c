/**
 * The fake Responses server's `encrypted_content`: what a reasoning item
 * carries so that a server keeping nothing (`store: false`) can take its
 * reasoning back. OpenAI's is opaque and authenticated: changed by one
 * character it is refused as "could not be verified". The fake's is the
 * item's id and summary, signed with a key of this process, so a reasoning
 * item sent back altered, or under another item's id, is refused the same way.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY = randomBytes(32);

/** The sealed content of reasoning item `id` with `summary`. Starts as OpenAI's do ("gAAA…"). */
export function seal(id: string, summary: string): string {
  const payload = Buffer.from(JSON.stringify({ id, summary })).toString('base64url');
  return `gAAAA${payload}.${mac(payload)}`;
}

/** The item id sealed in `content`, or undefined when it is not content this process sealed, unaltered. */
export function sealedId(content: unknown): string | undefined {
  if (typeof content !== 'string' || !content.startsWith('gAAAA')) return undefined;
  const [payload, signature, ...rest] = content.slice(5).split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) return undefined;
  const expected = Buffer.from(mac(payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const { id } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { id?: unknown };
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

function mac(payload: string): string {
  return createHmac('sha256', KEY).update(payload).digest('base64url');
}
