/**
 * The one identity of a caller across the gateway. The `Authorization` header is parsed once:
 * the scheme is case-insensitive and whitespace around and between its parts is ignored
 * (`bearer  T`, `BEARER\tT` and `Bearer T` are one caller, as the upstream accepts them all), the
 * header forwarded upstream is the normalized `Bearer T` (a header of another scheme is not
 * forwarded: its caller is anonymous), and the caller's key is a SHA-256 of the token, never the
 * token itself. That key keys single-flight and kept answers
 * (singleFlight.ts), the response-cache session and graphql-sse reservations' owner.
 *
 * Budgets (REST concurrency slots and queues, rate limits, graphql-sse reservation caps) are
 * counted against the identity's `budget`: the caller's own key, or its client address's key when
 * it has no token or the upstream rejected its token lately (`KnownCallers`). So callers without a
 * token are limited per address (not one budget for all of them), and a junk token is counted
 * against its address once answered 401. A token not proven yet (never answered 2xx) also counts
 * its operations against its address's rate limit, so fresh junk tokens, one per request, get no
 * fresh budget either (useCallerRateLimit.ts).
 * The keys of the last few headers seen are kept, so a hash is not recomputed each time.
 */
import { createHash } from 'node:crypto';
import { clientNetwork } from '../clientNetwork.js';
import { systemClock, type Clock } from './clock.js';

export const ANONYMOUS = 'anonymous';

export interface Credential {
  /** The key: a hash of the token, or `anonymous` without one. */
  key: string;
  /** The header to forward (`Bearer <token>`); none without a bearer token. */
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
  // Not a bearer token, which is all the REST API takes: never forwarded, the caller is anonymous.
  // It was forwarded as sent: behind a proxy that authenticates its users with `Basic` and passes
  // the header on, each user's password went to the REST API.
  if (!bearer) return NONE;
  const token = bearer[1];
  return { key: hash(token), header: `Bearer ${token}`, token };
}

const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The caller key of an `Authorization` header. */
export function callerKey(authorization: string | null | undefined): string {
  return credentialOf(authorization).key;
}

/** Client addresses whose keys are kept (a SHA-256 per request was 0.8 % of a small query's CPU), the oldest first out. */
const KEPT_ADDRESSES = 1024;
/**
 * The longest address text kept (an IPv6 address with a zone is at most about 60 characters). An
 * `X-Forwarded-For` entry read as the address is the client's own text when `--trust-proxy-hops`
 * counts a proxy more than there is: 1,100 distinct entries of 12 KB kept 11 MB.
 */
const KEPT_ADDRESS_CHARS = 64;
const addressKeys = new Map<string, string>();

/** The budget key of a client address, its network's (`clientNetwork`), hashed: addresses stay out of keys, logs and Redis. */
export function addressKey(address: string | undefined): string {
  const text = address ?? 'unknown';
  let key = addressKeys.get(text);
  if (key === undefined) {
    key = `addr:${hash(clientNetwork(text)).slice(0, 22)}`;
    if (text.length > KEPT_ADDRESS_CHARS) return key;
    if (addressKeys.size >= KEPT_ADDRESSES) addressKeys.delete(addressKeys.keys().next().value!);
    addressKeys.set(text, key);
  }
  return key;
}

/** True when `budget` is a client address's budget (no known token). */
export const isAddressKey = (budget: string) => budget.startsWith('addr:');

/** Who a request's caller is, and whom its work is counted against. */
export interface CallerIdentity {
  /** The credential's key (`callerKey`). */
  key: string;
  /** Whom its work counts against: its own key, or its client address's when it has no token or a rejected one. */
  budget: string;
  /** Its client address's key. */
  address: string;
  /** The upstream accepted its token lately (a 2xx); false without a token. */
  proven: boolean;
}

/**
 * Whom work the gateway takes before the REST API has answered for the token counts against (the
 * request-bodies budget, APQ registrations): the identity's budget once its token is proven,
 * else its client address. Fresh made-up tokens, one per request, each had a budget of their own:
 * 300 slow bodies took the whole bodies budget (every other caller's POSTs got 503), and APQ
 * registrations went past the per-caller quota.
 */
export function provenBudget(identity: CallerIdentity): string {
  return identity.proven ? identity.budget : identity.address;
}

/** How often a proven token's expiry and place among the kept ones are renewed, at most. */
const REFRESH_MS = 1_000;

/**
 * What the upstream said of each token lately, in two bounded maps (least recently seen first
 * out): tokens it answered with a 2xx (proven, for `provenTtlMs`: an hour, so a caller served
 * from the response cache stays proven) and tokens it answered with a 401 (rejected, for
 * `rejectedTtlMs`: ten minutes). A later answer moves a token from one to the other.
 */
export class KnownCallers {
  private readonly proven = new Map<string, number>();
  private readonly rejected = new Map<string, number>();

  constructor(
    private readonly max = 10_000,
    private readonly clock: Clock = systemClock,
    private readonly rejectedTtlMs = 10 * 60_000,
    private readonly provenTtlMs = 60 * 60_000,
  ) {}

  /** An answer with `status` came for caller `key`. */
  answered(key: string, status: number): void {
    if (key === ANONYMOUS) return;
    if (status === 401) this.move(key, this.proven, this.rejected, this.rejectedTtlMs);
    else if (status >= 200 && status < 300) {
      // Every answer of a busy token lands here: one seen proven within the last second keeps its place.
      const until = this.proven.get(key);
      if (until !== undefined && until - this.clock.now() > this.provenTtlMs - REFRESH_MS) return;
      this.move(key, this.rejected, this.proven, this.provenTtlMs);
    }
  }

  /**
   * A result stored for caller `key` was served from the shared response cache: a result is stored
   * only for a token the REST API accepted (on whichever replica stored it), so it counts as that
   * answer here too, unless this process saw the token rejected since. Else a replica that answered
   * a token from the cache alone (a round-robin load balancer sends a caller's reads to each replica
   * in turn) counted every one of its operations against its client address's anonymous limit.
   */
  vouched(key: string): void {
    if (!this.fresh(this.rejected, key)) this.answered(key, 200);
  }

  /**
   * The identity of a request with this header from this client address. A rejected token counts
   * against its address, as a request without a token does: junk tokens get no budget of their own.
   */
  identify(authorization: string | null | undefined, address: string | undefined): CallerIdentity {
    const { key } = credentialOf(authorization);
    const addressBudget = addressKey(address);
    if (key === ANONYMOUS) return { key, budget: addressBudget, address: addressBudget, proven: false };
    const rejected = this.fresh(this.rejected, key);
    return { key, budget: rejected ? addressBudget : key, address: addressBudget, proven: !rejected && this.fresh(this.proven, key) };
  }

  private move(key: string, from: Map<string, number>, to: Map<string, number>, ttlMs: number): void {
    from.delete(key);
    to.delete(key);
    if (to.size >= this.max) to.delete(to.keys().next().value!);
    to.set(key, this.clock.now() + ttlMs);
  }

  private fresh(map: Map<string, number>, key: string): boolean {
    const until = map.get(key);
    if (until === undefined) return false;
    if (until > this.clock.now()) return true;
    map.delete(key);
    return false;
  }
}
