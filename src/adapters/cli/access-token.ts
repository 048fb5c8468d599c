/** The random tokens that guard crow's local servers (trace viewer, ACP bridge), and comparing them. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh random token (192 bits), safe in a URL. */
export function newAccessToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Compares a presented secret with the expected one in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
