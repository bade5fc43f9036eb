import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Opaque random ids, like the hosted API's (20 characters of base62). */
export function newId(length = 20): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

/** A secret token (48 base62 characters). */
export function newToken(prefix = 'gb_api_'): string {
  return prefix + newId(48);
}
