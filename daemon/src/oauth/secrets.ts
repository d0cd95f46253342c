// The OAuth secrets the board hands out (codes, access and refresh tokens) and the PKCE check: random values from
// node:crypto, kept by the board only as SHA-256 hashes. No cryptography of our own: a hash, a compare, random bytes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefixes make a leaked secret easy to recognise and tell an OAuth access token from an agent token (rt_). */
export const ACCESS_PREFIX = 'rta_';
export const REFRESH_PREFIX = 'rtr_';
export const CODE_PREFIX = 'rtc_';
export const CLIENT_PREFIX = 'rtapp_';

/** 256 random bits, base64url, after the prefix. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** RFC 7636 section 4.1: 43-128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge: the base64url SHA-256 of a verifier, 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isCodeChallenge = (value: string): boolean => CHALLENGE.test(value);

/** RFC 7636 section 4.6, S256 only: BASE64URL(SHA256(verifier)) equals the challenge, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier) || !CHALLENGE.test(challenge)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
