/**
 * The one identity of a caller across the gateway. The `Authorization` header is parsed once:
 * the scheme is case-insensitive and whitespace around and between its parts is ignored
 * (`bearer  T`, `BEARER\tT` and `Bearer T` are one caller, as the upstream accepts them all), the
 * header forwarded upstream is the normalized `Bearer T`, and the caller's key is a SHA-256 of
 * the token, never the token itself. That key keys single-flight and kept answers
 * (singleFlight.ts), the response-cache session and graphql-sse reservations' owner.
 *
 * Budgets (REST concurrency slots and queues, rate limits, graphql-sse reservation caps) are
 * counted against `budgetKey`: the caller's key once its token is known good (the upstream
 * answered it with a 2xx: `KnownCallers`), else the client address's key. So callers without a
 * token are limited per address (not one budget for all of them), and junk tokens (each new one
 * unknown, each answered 401) cannot each get a fresh budget: they all count against their address.
 * The keys of the last few headers seen are kept, so a hash is not recomputed each time.
 */
import { createHash } from 'node:crypto';
import { systemClock, type Clock } from './clock.js';

export const ANONYMOUS = 'anonymous';

export interface Credential {
  /** The key: a hash of the token, or `anonymous` without one. */
  key: string;
  /** The header to forward (`Bearer <token>`, or the header as sent, trimmed, when it is not a bearer token); none when absent. */
  header?: string;
  /** The token (scrubbed from upstream messages). */
  token?: string;
}

const NONE: Credential = { key: ANONYMOUS };
/** Headers whose credentials are kept, most recent last; the oldest goes first. */
const KEPT = 64;
const parsed = new Map<string, Credential>();

/** Parses an `Authorization` header (see above). */
export function credentialOf(authorization: string | null | undefined): Credential {
  if (!authorization) return NONE;
  let credential = parsed.get(authorization);
  if (credential === undefined) {
    credential = parse(authorization);
    if (parsed.size >= KEPT) parsed.delete(parsed.keys().next().value!);
    parsed.set(authorization, credential);
  }
  return credential;
}

function parse(authorization: string): Credential {
  const trimmed = authorization.trim();
  if (!trimmed) return NONE;
  const bearer = /^bearer\s+(\S+)$/i.exec(trimmed);
  // Not a bearer token (the upstream answers 401): forwarded as sent, its own caller (never shared with another header).
  if (!bearer) return { key: hash(`raw:${trimmed}`), header: trimmed };
  const token = bearer[1];
  return { key: hash(token), header: `Bearer ${token}`, token };
}

const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The caller key of an `Authorization` header. */
export function callerKey(authorization: string | null | undefined): string {
  return credentialOf(authorization).key;
}

/** The budget key of a client address (hashed: addresses stay out of keys, logs and Redis). */
export function addressKey(address: string | undefined): string {
  return `addr:${hash(address ?? 'unknown').slice(0, 22)}`;
}

/** True when `budget` is a client address's budget (no known token). */
export const isAddressKey = (budget: string) => budget.startsWith('addr:');

/**
 * Callers whose token the upstream answered with a 2xx recently: a bounded map (least recently
 * confirmed first out), each entry good for `ttlMs`. A 401 removes an entry at once.
 */
export class KnownCallers {
  private readonly known = new Map<string, number>();

  constructor(
    private readonly max = 10_000,
    private readonly ttlMs = 10 * 60_000,
    private readonly clock: Clock = systemClock,
  ) {}

  /** An answer with `status` came for caller `key`. */
  answered(key: string, status: number): void {
    if (key === ANONYMOUS) return;
    if (status === 401) {
      this.known.delete(key);
      return;
    }
    if (status < 200 || status >= 300) return;
    this.known.delete(key);
    if (this.known.size >= this.max) this.known.delete(this.known.keys().next().value!);
    this.known.set(key, this.clock.now() + this.ttlMs);
  }

  has(key: string): boolean {
    const until = this.known.get(key);
    if (until === undefined) return false;
    if (until > this.clock.now()) return true;
    this.known.delete(key);
    return false;
  }

  /**
   * Whom a call is counted against: a known caller itself, anyone else its client address. With
   * no address (a request made in process, not over a socket) a token counts as itself.
   */
  budgetKey(authorization: string | null | undefined, address: string | undefined): string {
    const { key } = credentialOf(authorization);
    if (key === ANONYMOUS) return addressKey(address);
    return address === undefined || this.has(key) ? key : addressKey(address);
  }
}
