/**
 * The response cache: Yoga's response-cache plugin (over @envelop/response-cache) with the gateway's
 * choices.
 *
 * - Private per caller: the session is a hash of the caller's Authorization header (callerHash.ts),
 *   so the cache key of a result holds no token; callers without a token share one session. A
 *   response to a caller with a token says `Cache-Control: private, no-store`, and a cached result
 *   carries an opaque `ETag` (a hash of its key and data; no `Last-Modified`, and no 304 answered
 *   from a client's `If-None-Match`: the library's lookup of that header is left out).
 * - Entities are nodes by their global id (`Type:<id>`); the plugin adds `id` to every selection
 *   set of a node type, so a node is recorded even when the client did not select its id.
 * - A mutation invalidates, on every replica sharing the store: the nodes of its payload (the
 *   plugin), the node a `deletedId` names, the nodes its input names by REST keys
 *   (`organizationId`, `spaceId` + `changeRequestId`, …: the node it writes, the parents whose
 *   lists a create or delete changes; by a change request's number, the types such a key names),
 *   every cached result holding a node of the type it creates or deletes (root lists,
 *   empty lists), and of a type whose objects it changes unnamed (UNNAMED_WRITE_TYPES). A write the REST API refused (a 4xx answer to it, a 401 to any call; an
 *   operation refused before it ran; input the gateway refused, or a read that failed, before the
 *   write) changed nothing
 *   and invalidates nothing: without that, a caller with no token could empty every caller's
 *   cache, and add a Redis key per request.
 * - A write that changes who may read what (ACCESS_WRITES: permissions, members, teams, SAML/SSO,
 *   share links, site audience, transfers and moves, a `defaultLevel`) renews access generations
 *   (responseCacheStores.ts), which are part of result keys, so the results cached before it are
 *   out of reach on every replica:
 *   - a write whose effect on access is limited to the user its input names by `userId`
 *     (USER_ACCESS_WRITES, the reasoning is there) renews that user's generation and the
 *     unknown-user one: every result of every session of that user is stale, and of every session
 *     whose user this replica does not know yet; other callers keep theirs (a result of theirs
 *     that holds what the write changed, e.g. the member and its role in a list, is forgotten by
 *     the invalidation above, which every mutation does);
 *   - any other (teams, SAML/SSO, share links, sites, transfers and moves, joins and invites,
 *     grants, a `defaultLevel`, a `userId` that cannot be read) renews the global generation, part
 *     of every key: every result of any type and any caller, anonymous share-key reads included.
 *   A mutation with one global access write renews the global generation only.
 * - Whose a session is: a result key holds the global generation and the generation of the
 *   session's user, or the unknown-user one while this replica does not know the user, or none
 *   for a caller without a token (only global writes change what it may read: share links are
 *   global). The first time a result of a token is stored (a successful result of a token the
 *   REST API accepted: a junk token never causes one), the gateway asks `GET /user` with that
 *   token, in the background, once per session per process (one in flight per session, a
 *   failure retried after a minute at the earliest), and keeps the answer in a bounded LRU (a
 *   token's user never changes). Once known, a lookup reads the user's key and, when that misses,
 *   the unknown-user key the session's results were stored under before (still fresh if that
 *   generation is unchanged, since every user's write renews it): learning a user costs no miss.
 * - A result computed before a renewal and stored after it is out of reach all the same: its key
 *   holds the generations read when the request looked the cache up, before it read anything.
 *   Likewise a result computed before an invalidation of one of its objects or types (on any
 *   replica) and stored after it is not stored: the store refuses a result holding anything
 *   invalidated since its request's lookup (responseCacheStores.ts). The lookup of a key is
 *   remembered until its result is stored (the earliest, when requests of one key overlap; at
 *   most `INVALIDATION_MARK_MS`): a result whose lookup is not known is not stored. Nor is the
 *   result of an operation that took the answer of a REST call another request of its caller
 *   started earlier (`tookEarlierRead`: single-flight), which may predate its lookup.
 * - A write sent that got no answer (a timeout, a reset, a proxy's 502 or 504: `writeMayBeMade`)
 *   may be made after its invalidation: for `INVALIDATION_MARK_MS`, no result holding what it names (an
 *   access write: no result) is stored (`unsettle`).
 * - The mutation's response is sent only once these are done, so the caller's next read, on any
 *   replica, sees the write.
 * - Only a token the REST API accepted has results stored (`accepted`; a made-up token's
 *   `{ __typename }` needs no REST call), so a hit of a token's session is the REST API's answer
 *   for it, on whichever replica stored the result: the replica that serves it counts the token as
 *   accepted (`vouch`) for its budgets and rate limits, as if it had called the REST API itself.
 * - Results with errors, mutations and subscriptions are never cached; a result lives the TTL of
 *   its shortest-lived type (`ttlPerType`). A mutation or subscription whose text was parsed
 *   before (the parse cache) is not looked up either: no key is made of its input, and no Redis
 *   round trip for generations and result is made (the library asks both of every operation).
 *   Other lookups read the generations and the result in one round trip when the generations
 *   are the ones the replica saw last (responseCacheStores.ts); the library's reads of the key
 *   then take what that round trip read (`prefetches`).
 * - Store: process memory (LRU), or Redis (responseCacheStores.ts: lookup sets that shrink as
 *   their results expire, invalidation in bounded batches) when a Redis handle is given. While
 *   Redis is down the cache is bypassed (every request is a miss, nothing is stored).
 *
 * `extensions.responseCache.hit` says whether a result came from the cache.
 */
import { isAsyncIterable, type Plugin as EnvelopPlugin } from '@envelop/core';
import type { CacheEntityRecord } from '@envelop/response-cache';
import { useResponseCache as useYogaResponseCache } from '@graphql-yoga/plugin-response-cache';
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import {
  getArgumentValues,
  getOperationAST,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type OperationDefinitionNode,
} from 'graphql';
import { isPromise, type Plugin } from 'graphql-yoga';
import type { Logger } from '../../log.js';
import { encodeKeys } from '../../schema/lib/node.js';
import { fragmentsOf, rootFields } from '../../schema/lib/rootFields.js';
import { pathParams, RESOURCES, type Resource } from '../../schema/resources.js';
import type { RedisHandle } from '../redis.js';
import { callerHash } from '../lib/callerHash.js';
import { variablesKey } from '../lib/variablesKey.js';
import { isIntrospecting } from './useClientIntrospection.js';
import { acceptsIncremental } from './useDirectiveArguments.js';
import { LRUCache } from 'lru-cache';
import { ANONYMOUS, writeMayBeMade } from '../../rest/index.js';
import {
  CACHE_PREFIX,
  EVERY_RESULT,
  INVALIDATION_MARK_MS,
  memoryCache,
  redisCache,
  sha,
  type GenerationalCache,
  type Generations,
  type GenerationScope,
  type Prefetched,
} from '../lib/responseCacheStores.js';

export interface ResponseCacheOptions {
  /** Default time to live of a cached result, in ms (> 0 unless `invalidateOnly`). */
  ttlMs: number;
  /**
   * This replica caches nothing (no lookup, no store, no `extensions.responseCache`) but shares
   * `redis` with replicas that may: its mutations still make their results stale. Without it, a
   * rolling change that turns the cache on (or a TTL set on some replicas only) left the writes made
   * through the replicas without it unseen by the others' cached results for the TTL, a member's
   * removal included.
   */
  invalidateOnly?: boolean;
  /** Shared store across replicas; process memory without it. */
  redis?: RedisHandle;
  log: Logger;
  /** Called with each query result's hit (true) or miss (false), e.g. for metrics. */
  onResponseCache?: (hit: boolean) => void;
  /** Most results kept by the in-process store (default 1000). */
  maxEntries?: number;
  /**
   * The id of the request caller's user (`GET /user` with its token), or undefined (no call) when
   * the caller should not be looked up (a token the REST API has not accepted). Without it, every
   * session's user stays unknown (keys use the unknown-user generation).
   */
  userOf?: (request: Request) => Promise<string | undefined> | undefined;
  /**
   * The parsed document of a query text, if it was parsed before (the parse cache): a mutation or
   * subscription known so is never looked up (no key, no Redis round trip; it is never stored).
   */
  parsedDocument?: (query: string) => DocumentNode | undefined;
  /**
   * Whether an operation (by its context) took an answer of a REST call that another request
   * started before its own (single-flight): an answer that may predate its lookup, so its result
   * is not stored.
   */
  tookEarlierRead?: (context: unknown) => boolean;
  /**
   * Whether the REST API accepted the request's token (by the end of its operation): a result of a
   * token it did not (a made-up one, whose `{ __typename }` needs no REST call) is not stored, so
   * that a hit vouches for its token (`vouch`).
   */
  accepted?: (request: Request) => boolean;
  /** A result stored for the request's token was served: the REST API accepted that token (on some replica). */
  vouch?: (request: Request) => void;
}

/** TTL per type relative to the default: the integrations catalog changes rarely, review threads often. */
export function ttlPerType(ttlMs: number): Record<string, number> {
  const short = Math.max(1, Math.round(ttlMs / 2));
  return { Integration: ttlMs * 6, ChangeRequest: short, Comment: short, CommentReply: short };
}

/**
 * REST keys in a mutation's input → the global id of the node they name: every node type of the
 * resource table, its keys its path's parameters (outermost first), as its global id holds them.
 * Every type, not a chosen few: a reply, a site section or a share link a write names by its keys
 * is forgotten from every cached result holding it, though the payload selects none of it (the
 * reader's results are other callers' too).
 */
const NODES_BY_INPUT_KEYS: Array<[typename: string, keys: string[]]> = [
  ...Object.entries(RESOURCES).map(([typename, r]): [string, string[]] => [typename, pathParams(r.path)]),
  // A key a write's REST body names (not its path): `addSiteSectionToGroup` moves the section
  // `sectionId` into the group, its `sectionGroup` changed.
  ['SiteSection', ['organizationId', 'siteId', 'sectionId']],
];

/**
 * Keys REST also takes as a number (a change request's) → the pattern of the number. Given so, a
 * key does not spell the node's global id (which holds the REST id): every cached result holding
 * a node of that type is forgotten instead, as the REST id is not known before the write answers.
 */
const NUMBERED_KEYS: ReadonlyMap<string, RegExp> = new Map(
  Object.values(RESOURCES as Record<string, Resource>).flatMap((r) => (r.numbered ? [[pathParams(r.path).at(-1)!, r.numbered]] : [])),
);

/**
 * Writes that change who may read what: every write of the resources that grant access (members,
 * teams, SAML providers, share links; from the resource table), and the hand-written ones. Their
 * success or failure renews the access generation (a failed write may have been made), unless the
 * REST API or the gateway refused it (`refused`: a 4xx answer to the write, a 401, bad input), which
 * changed nothing.
 */
const ACCESS_RESOURCES = ['Member', 'Team', 'SamlProvider', 'ShareLink'] as const;
export const ACCESS_WRITES: ReadonlySet<string> = new Set([
  ...ACCESS_RESOURCES.flatMap((name) => Object.keys(RESOURCES[name].writes)),
  // Roles on spaces and collections.
  'grantSpacePermission',
  'updateSpaceUserPermission',
  'removeSpaceUserPermission',
  'grantCollectionPermission',
  'updateCollectionUserPermission',
  'removeCollectionUserPermission',
  // Membership.
  'joinOrganization',
  'inviteToOrganization',
  // Inherited roles and owning organization: a space or collection changes parent or organization
  // (a deleted collection's spaces move to the organization root).
  'transferSpace',
  'transferCollection',
  'moveSpace',
  'moveCollection',
  'deleteCollection',
  // A deleted space takes its content from everyone: a lookup of one of its change requests,
  // comments or pages holds no Space the invalidation of the space would reach.
  'deleteSpace',
  // A site's audience (visibility, publication, visitor authentication).
  'updateSite',
  'publishSite',
  'unpublishSite',
  'updateSitePublishingAuth',
  // The spaces a site publishes, which its share keys open: a section brings its space, and
  // takes it away when deleted.
  'createSiteSection',
  'deleteSiteSection',
]);
/** Input fields that change access whatever the mutation (a space's or collection's default role). */
const ACCESS_INPUT_FIELDS = ['defaultLevel'];

interface UserWriteEffects {
  types: readonly string[];
  sparesOrganization: boolean;
}
const ROLE_ON_CONTENT: UserWriteEffects = { types: ['Member'], sparesOrganization: false };

/**
 * The access writes whose effect on access is limited to the one user their input names by
 * `userId` (REST seed and src/upstream): they renew that user's generation (and the unknown-user
 * one) rather than the global one.
 *
 * - `updateMember` (`PATCH /orgs/{organizationId}/members/{userId}`, `role`): the member's own
 *   role; the organization, its content and other members are unchanged.
 * - `removeMember` (`DELETE …/members/{userId}`): the member leaves, with their team memberships
 *   and their roles on the organization's spaces and collections (theirs only).
 * - `setMemberSso` (`POST …/members/{userId}/sso`): how that member signs in.
 * - `update`/`remove` `Space`/`Collection` `UserPermission` (`PATCH`/`DELETE
 *   …/permissions/users/{userId}`): that user's explicit role on the space or collection (and what
 *   the collection's spaces inherit, for that user).
 *
 * The user is named by the REST API's own id (exact, opaque), the one `GET /user` answers for
 * any token of that user, so the generation renewed is the one every session of theirs reads.
 *
 * The lists of who may read (`members`, `userPermissions`, `aggregatePermissions`, a team's
 * members) are other callers' results that such a write changes: those holding the user or the
 * member are forgotten by the mutation's invalidation of the nodes its input names (`User`,
 * `Member`, the space or collection; the organization for a removal), and by the types below.
 *
 * Everything else stays global: `grant…Permission` (users and teams: several principals), team
 * writes (a team's members and roles reach every member of it), SAML providers, share links,
 * invites and joins (whose user is not one the input names), transfers and moves, sites, a
 * `defaultLevel`, and a write whose `userId` cannot be read.
 *
 * What each changes for other callers besides the nodes its input names (the types whose results
 * are forgotten, and whether its organization is spared):
 *
 * - A change to one member (its role, its sign-in) does not change its organization for other
 *   callers, only the lists of members (by role, by sort) and of users with access
 *   (`aggregatePermissions`: a guest given a role joins every space's) that the member may join or
 *   move in: those types are forgotten instead of every result holding the organization (each
 *   member list, each space list, any query starting at `organization`), which the generic
 *   invalidation by `organizationId` would forget.
 * - A removal (a list write: its organization's lists and the `Member` type are forgotten) also
 *   takes the member out of its teams: the `Team` type (a team's `membersCount`).
 * - A user's role on a space or collection, changed or removed, changes that user's member objects
 *   (`spacesCount`, `spaces`) in every organization, whose ids the input does not give: the
 *   `Member` type.
 */
export const USER_ACCESS_WRITES: ReadonlyMap<string, UserWriteEffects> = new Map([
  ['updateMember', { types: ['Member', 'User'], sparesOrganization: true }],
  ['setMemberSso', { types: ['Member'], sparesOrganization: true }],
  ['removeMember', { types: ['Team'], sparesOrganization: false }],
  ['updateSpaceUserPermission', ROLE_ON_CONTENT],
  ['removeSpaceUserPermission', ROLE_ON_CONTENT],
  ['updateCollectionUserPermission', ROLE_ON_CONTENT],
  ['removeCollectionUserPermission', ROLE_ON_CONTENT],
]);

/**
 * Writes that change objects neither their payload nor their input names, and the types of those
 * objects (every cached result holding one is forgotten):
 *
 * - A space added to an organization (created, copied, restored) is one more in the `spacesCount`
 *   of every member with a role on it through the organization, and of every team granted the
 *   collection it is in.
 * - The activity ping sets the caller's `lastSeenAt`: its member, which the input does not name
 *   (the caller's user id is not in it).
 */
const UNNAMED_WRITE_TYPES: ReadonlyMap<string, readonly string[]> = new Map([
  ['createSpace', ['Member', 'Team']],
  ['duplicateSpace', ['Member', 'Team']],
  ['restoreSpace', ['Member', 'Team']],
  ['pingOrganization', ['Member']],
]);

/**
 * Input fields whose write changes objects of a type the input names none of, and those types: a
 * section's `defaultSiteSpace` changes `default` of the site space it names and of the one it
 * replaces (REST names neither by its keys; a result holding the section is forgotten by them).
 */
const UNNAMED_INPUT_TYPES: ReadonlyMap<string, readonly string[]> = new Map([['defaultSiteSpace', ['SiteSpace']]]);

/** Sessions' users kept per process (a token's user never changes); lookups in flight at most. */
const KNOWN_SESSIONS = 10_000;
const LOOKUPS_IN_FLIGHT = 64;
/** A session whose lookup failed is not looked up again for this long. */
const LOOKUP_RETRY_MS = 60_000;
/** Fallback keys waiting for the lookup that follows their key (bounded: one per request in flight). */
const FALLBACKS_KEPT = 1000;
/** Keys whose lookup's invalidation count waits for their result (one per request in flight). */
const LOOKUPS_KEPT = 1000;

/** The key of a request whose generations could not be read: never read nor stored. */
const NO_KEY = `${CACHE_PREFIX}r:none`;

/** Text found in every document that holds a `@defer` or `@stream` (and in some others). */
const INCREMENTAL = /defer|stream/;

/** Writes that add or remove an object of the named type from lists. */
const LIST_WRITE = /^(create|delete|duplicate|restore|publish|unpublish|remove)([A-Z]\w*)$/;

export function useResponseCache(options: ResponseCacheOptions): Plugin[] {
  const { log, redis } = options;
  const types = ttlPerType(options.ttlMs);
  const fallbacks = new LRUCache<string, string>({ max: FALLBACKS_KEPT });
  const prefetched = prefetches();
  // Each operation's key, by its context (for `tookEarlierRead`).
  const keys = new WeakMap<object, string>();
  const lookups = new LRUCache<string, number>({ max: LOOKUPS_KEPT, ttl: INVALIDATION_MARK_MS });
  const store = tracked(
    redis ? redisCache(redis, { log, now: redis.now }) : memoryCache(options.maxEntries ?? 1000),
    fallbacks,
    prefetched,
    lookups,
  );
  const sessions = sessionUsers(options.userOf);
  // An operation that took an earlier call's answer, or of a token the REST API has not accepted:
  // its lookup is forgotten, so its result is not stored.
  const unstorable = (context: unknown) => {
    const key = typeof context === 'object' && context ? keys.get(context) : undefined;
    if (key === undefined) return;
    const request = (context as { request?: Request }).request;
    const unaccepted = request !== undefined && callerHash(request) !== ANONYMOUS && options.accepted?.(request) === false;
    if (unaccepted || options.tookEarlierRead?.(context)) lookups.delete(key);
  };
  // Requests that came through Yoga's params step (not graphql-sse's own path, which the plugin cannot key).
  const viaParams = new WeakSet<Request>();
  // The library answers 304 to an `If-None-Match` naming a cache key; its ETag is not that key here.
  const {
    onRequest: _notModified,
    onPluginInit,
    ...responseCache
  } = useYogaResponseCache({
    cache: store,
    ttl: options.ttlMs,
    ttlPerSchemaCoordinate: types,
    session: (request) => callerHash(request),
    // Not for introspection, which it never keeps (useClientIntrospection.ts; known at execution).
    enabled: (request, context) =>
      viaParams.has(request) && !isIntrospecting(request) && (!options.invalidateOnly || isMutation(context, options.parsedDocument)),
    // Synchronous without a cache: an async hook makes Yoga's whole hook chain wait a turn.
    buildResponseCacheKey: options.invalidateOnly
      ? () => NO_KEY
      : async ({ documentString, operationName, variableValues, sessionId, context, request }) => {
          // The library asks a key of every operation, then looks it up: a write's would always miss,
          // and cost two Redis round trips and a hash of its input (up to a megabyte) first.
          const known = options.parsedDocument?.(documentString);
          const type = known && getOperationAST(known, operationName)?.operation;
          if (type === 'mutation' || type === 'subscription') return NO_KEY;
          const session = sessionId ?? ANONYMOUS;
          const scope = sessions.scope(session);
          // A document that may hold `@defer` or `@stream` (any that does names one): whether the request
          // takes an incremental result. A client that takes none is refused such an operation (406,
          // useDirectiveArguments.ts), and was answered 200 with the result cached for one that does.
          const incremental = INCREMENTAL.test(documentString) ? acceptsIncremental(request) : null;
          // The operation and session hashed once, whatever the keys made of it (a user's and its fallback).
          // No name (null) is not the name "" (which names no operation: a 400): keyed as one, a
          // cached result of the document's only operation answered a request naming "".
          const operation = sha(
            `${JSON.stringify([documentString, operationName ?? null, session, incremental])}\n${variablesKey(variableValues)}`,
          );
          const key = (generations: unknown[]) => `${CACHE_PREFIX}r:${sha(JSON.stringify([...generations, operation]))}`;
          /**
           * The keys a lookup reads, primary first: a user's session also the unknown-user key it was
           * stored under before. Hashed once per generations (the store asks for its guess's, which are
           * usually the ones it then reads).
           */
          let made: { of: string; keys: string[] } | undefined;
          const keysOf = (g: Generations): string[] => {
            const of = `${g.global}\n${g.unknown}\n${g.user}`;
            if (made?.of === of) return made.keys;
            const unknown = scope === 'global' ? undefined : key([g.global, 'unknown', g.unknown]);
            const keys =
              scope === 'global'
                ? [key([g.global, 'anonymous'])]
                : scope === 'unknown'
                  ? [unknown!]
                  : [key([g.global, 'user', g.user]), unknown!];
            made = { of, keys };
            return keys;
          };
          const g = await store.generations(scope, keysOf);
          // The generations could not be read (Redis down or late): nothing is read or stored under this
          // key, even if Redis answers again before the result is stored (it would hold no generation).
          if (!g) return NO_KEY;
          const [primary, fallback] = keysOf(g);
          // The invalidations its result must postdate: the earliest of the lookups of this key in flight.
          lookups.set(primary, Math.min(g.invalidations, lookups.get(primary) ?? Infinity), { noUpdateTTL: lookups.has(primary) });
          if (typeof context === 'object' && context) keys.set(context, primary);
          // Read with the generations, in one round trip: the library's lookup of this key takes it.
          // Else nothing read before for this key is taken (a read of another request that never took it).
          if (g.prefetched) prefetched.put(primary, g.prefetched);
          else {
            prefetched.forget(primary);
            if (fallback !== undefined) fallbacks.set(primary, fallback);
          }
          return primary;
        },
    includeExtensionMetadata: !options.invalidateOnly,
  });
  return [
    {
      onParams: ({ request }) => void viaParams.add(request),
      onResponse({ request, response }) {
        if (!viaParams.has(request)) return;
        if (request.headers.has('authorization')) response.headers.set('cache-control', 'private, no-store');
        opaqueValidator(response.headers);
      },
    },
    {
      ...responseCache,
      // The Envelop plugin it adds, quiet about operations a later plugin stopped (quietWhenStopped).
      onPluginInit: (init) =>
        onPluginInit?.({
          ...init,
          addPlugin: (plugin) => init.addPlugin({ ...plugin, onExecute: quietWhenStopped(beforeStoring(plugin.onExecute, unstorable)) }),
        }),
    },
    useMutationInvalidation(store) as Plugin,
    {
      onExecutionResult({ request, result }) {
        if (isAsyncIterable(result) || Array.isArray(result)) return;
        const metadata = (result as { extensions?: { responseCache?: { hit?: unknown; didCache?: unknown } } } | undefined)?.extensions
          ?.responseCache;
        if (typeof metadata?.hit === 'boolean') options.onResponseCache?.(metadata.hit);
        if (metadata?.hit === true && viaParams.has(request) && callerHash(request) !== ANONYMOUS) options.vouch?.(request);
        // A result of this session was stored: whose it is, if not known yet.
        if (metadata?.didCache === true && viaParams.has(request)) sessions.learn(callerHash(request), request);
      },
    },
  ];
}

/** Whether the operation a context runs is a mutation, by its document as parsed (the parse cache). */
function isMutation(context: unknown, parsedDocument: ResponseCacheOptions['parsedDocument']): boolean {
  const params = (context as { params?: { query?: string; operationName?: string } } | undefined)?.params;
  const document = params?.query ? parsedDocument?.(params.query) : undefined;
  return document !== undefined && getOperationAST(document, params?.operationName)?.operation === 'mutation';
}

type OnExecute = NonNullable<Plugin['onExecute']>;
type AfterExecute = { onExecuteDone?: (payload: unknown) => unknown } | undefined | void;

/**
 * The library's `onExecute`, its `onExecuteDone` skipped for an operation a later plugin stopped
 * (the cost limit, the variables' depth…: every refusal at execution). It warns on stderr for
 * each (`The cached execute function was not called…`), one unstructured line per refused
 * request anyone may send, and has nothing to keep of such a result anyway.
 */
function quietWhenStopped(onExecute: OnExecute | undefined): OnExecute | undefined {
  if (!onExecute) return undefined;
  return (payload) => {
    let executed = false;
    const observed = {
      ...payload,
      setExecuteFn: (next: Parameters<typeof payload.setExecuteFn>[0]) =>
        payload.setExecuteFn((args) => {
          executed = true;
          return next(args);
        }),
    };
    const skipIfStopped = (after: AfterExecute) => {
      const done = after?.onExecuteDone;
      return done ? { ...after, onExecuteDone: (p: unknown) => (executed ? done.call(after, p) : undefined) } : after;
    };
    const after = onExecute(observed) as AfterExecute | Promise<AfterExecute>;
    return (isPromise(after) ? after.then(skipIfStopped) : skipIfStopped(after)) as ReturnType<OnExecute>;
  };
}

/** The library's `onExecute`, `before` called with the operation's context once it is done, before its result is stored. */
function beforeStoring(onExecute: OnExecute | undefined, before: (context: unknown) => void): OnExecute | undefined {
  if (!onExecute) return undefined;
  return (payload) => {
    const first = (after: AfterExecute) => {
      const done = after?.onExecuteDone;
      return done
        ? {
            ...after,
            onExecuteDone: (p: unknown) => {
              before(payload.args.contextValue);
              return done.call(after, p);
            },
          }
        : after;
    };
    const after = onExecute(payload) as AfterExecute | Promise<AfterExecute>;
    return (isPromise(after) ? after.then(first) : first(after)) as ReturnType<OnExecute>;
  };
}

/** Sessions' users (hashes of their ids), learnt with `userOf` (see the module's doc). */
function sessionUsers(userOf: ResponseCacheOptions['userOf']) {
  const users = new LRUCache<string, string>({ max: KNOWN_SESSIONS });
  const failed = new LRUCache<string, true>({ max: KNOWN_SESSIONS, ttl: LOOKUP_RETRY_MS });
  const inFlight = new Set<string>();
  return {
    scope(session: string): GenerationScope {
      if (session === ANONYMOUS) return 'global';
      const user = users.get(session);
      return user === undefined ? 'unknown' : { user };
    },
    learn(session: string, request: Request): void {
      if (!userOf || session === ANONYMOUS || users.has(session) || inFlight.has(session) || failed.has(session)) return;
      if (inFlight.size >= LOOKUPS_IN_FLIGHT) return;
      const lookup = userOf(request);
      if (!lookup) return;
      inFlight.add(session);
      lookup
        .then(
          (id) => (typeof id === 'string' && id ? users.set(session, sha(id)) : failed.set(session, true)),
          () => failed.set(session, true),
        )
        .finally(() => inFlight.delete(session));
    },
  };
}

/**
 * The library marks a cached result with `ETag: <its cache key>` and the time it was stored as
 * `Last-Modified` (a time no client should revalidate against). The ETag becomes a hash of both:
 * opaque, and new whenever the result is stored again.
 */
function opaqueValidator(headers: Headers): void {
  const key = headers.get('etag');
  if (!key) return;
  headers.set('etag', `"${sha(`${key}\n${headers.get('last-modified') ?? ''}`).slice(0, 27)}"`);
  headers.delete('last-modified');
}

type TrackedCache = GenerationalCache & { settled(): Promise<unknown> };

/** Reads made with the generations and not taken yet, at most (a request takes its own within a step or two). */
const PREFETCHES_KEPT = 1000;

interface Prefetches {
  put(key: string, read: Prefetched): void;
  take(key: string): Prefetched | undefined;
  forget(key: string): void;
}

/**
 * What a key's lookup read in the round trip of its generations, until the library reads that key:
 * once for a result (the request is answered with it), twice for a miss (the library reads the key
 * when the request's parameters come, then again as its execution starts). A result key holds its
 * generations, so what it held is the key's value for any request that made it; a read taken by
 * another request of the same key is a read of a moment before, and a miss taken late only makes
 * the request run its operation, as a miss does.
 */
function prefetches(): Prefetches {
  const reads = new LRUCache<string, Prefetched & { takenOnce?: true }>({ max: PREFETCHES_KEPT });
  return {
    put: (key, read) => void reads.set(key, { ...read }),
    forget: (key) => void reads.delete(key),
    take(key) {
      const read = reads.get(key);
      if (!read) return undefined;
      if (read.value !== undefined || read.takenOnce) reads.delete(key);
      else read.takenOnce = true;
      return read;
    },
  };
}

/**
 * A store whose invalidations can be awaited (the plugin starts them without waiting), and whose
 * lookup of a key also tries the fallback key `buildResponseCacheKey` gave it.
 */
function tracked(
  cache: GenerationalCache,
  fallbacks: LRUCache<string, string>,
  prefetched: Prefetches,
  lookups: LRUCache<string, number>,
): TrackedCache {
  const pending = new Set<Promise<unknown>>();
  // A result found: its request stores nothing, so its lookup is not kept (else a later miss of the key counted from it).
  const hit = <T>(key: string, value: T) => {
    if (value != null) lookups.delete(key);
    return value;
  };
  return {
    get(key) {
      if (key === NO_KEY) return undefined;
      const read = prefetched.take(key);
      if (read) return hit(key, read.value);
      const fallback = fallbacks.get(key);
      if (fallback === undefined) {
        const value = cache.get(key);
        return isPromise(value) ? value.then((v) => hit(key, v)) : hit(key, value);
      }
      fallbacks.delete(key);
      return cache.getFirst([key, fallback]).then((value) => hit(key, value));
    },
    getFirst: (keys) => cache.getFirst(keys),
    set(key, result, entities, ttl) {
      const since = lookups.get(key);
      lookups.delete(key);
      if (key === NO_KEY || since === undefined) return;
      return cache.set(key, result, entities, ttl, since);
    },
    generations: (scope, keysOf) => cache.generations(scope, keysOf),
    bump: (users) => cache.bump(users),
    unsettle: (entities) => cache.unsettle(entities),
    invalidate(entities) {
      const p = Promise.resolve()
        .then(() => cache.invalidate(entities))
        .finally(() => pending.delete(p));
      // Started without waiting (by the library, or before a bump): a failure is seen by `settled()`
      // if anyone waits, and is never an unhandled rejection.
      p.catch(() => undefined);
      pending.add(p);
      return p;
    },
    settled: () => Promise.all(pending),
  };
}

/** The invalidations the plugin does not derive from a mutation's payload; the response waits for all. */
function useMutationInvalidation(store: TrackedCache): EnvelopPlugin {
  return {
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'mutation') return;
      const writes = mutationWrites(args, operation);
      return {
        async onExecuteDone({ result }) {
          // A write the REST API refused made no change: it forgets nothing, renews nothing (else a
          // caller without a token could empty everyone's cache, and add a Redis key per request).
          const made = isAsyncIterable(result) ? writes : writes.filter((w) => !refused(result, w.key));
          const entities = made.flatMap((w) => w.entities);
          const access = made.some((w) => w.access === 'global') ? 'global' : made.flatMap((w) => (w.access ? [w.access] : []));
          if (!isAsyncIterable(result)) collectDeletedIds(result.data, entities);
          if (entities.length) void store.invalidate(entities); // awaited by settled() below
          // A write that got no answer may be made after this: what it names (an access write: any
          // result) is not stored for a while (responseCacheStores.ts).
          const unanswered = isAsyncIterable(result) ? [] : made.filter((w) => noAnswer(result, w.key));
          if (unanswered.length)
            await store.unsettle(unanswered.some((w) => w.access) ? [EVERY_RESULT] : unanswered.flatMap((w) => w.entities));
          if (access === 'global') await store.bump();
          else if (access.length) await store.bump(access.map(sha));
          await store.settled();
        },
      };
    },
  };
}

/**
 * What each root field of a mutation may write: the entities it makes stale and whose access it
 * changes (one user's id, everyone's, or no one's), by the field's key in the result.
 */
interface Write {
  key: string;
  entities: CacheEntityRecord[];
  access: 'global' | string | undefined;
}

/**
 * Whether the write of the root field at `key` was refused: not run at all (the operation was
 * refused before execution, no data), or answered with errors that are each a refusal by the REST
 * API: a 4xx answer to a write request (401, 403, 404, 409, 429: the request was not applied), or
 * a 401 to any call (the token is not accepted: nothing it sent was written); or by the gateway:
 * the root field's own BAD_USER_INPUT with no REST answer and no limit named (its input checked
 * against src/api rules, an id that is no path segment), which a mutation raises before its write.
 * Without that last one, a caller with no token emptied every caller's cache with input the gateway
 * refused (`grantSpacePermission` without users: the global generation renewed, no REST call).
 * Likewise a failed GET of the root field itself: a mutation's resolver reads only before its
 * write (a delete's object, a change request's number made its id), so that write was never sent.
 * Without it, any token (a guest's, another organization's) emptied every caller's cache with
 * `deleteSpace` of an id it cannot see (a 404 to the read first: the global generation renewed).
 * A 5xx, no answer, or another error of the gateway's own may hide a write that was made.
 */
function refused(result: ExecutionResult, key: string): boolean {
  if (result.data === undefined) return true;
  const errors = (result.errors ?? []).filter((e) => e.path?.[0] === key);
  return (
    errors.length > 0 &&
    errors.every((e) => {
      const { code, upstream, limit } = (e.extensions ?? {}) as {
        code?: unknown;
        upstream?: { method?: unknown; status?: unknown };
        limit?: unknown;
      };
      if (code === 'BAD_USER_INPUT' && !upstream && limit === undefined && e.path?.length === 1) return true;
      if (upstream?.method === 'GET' && e.path?.length === 1) return true;
      const status = typeof upstream?.status === 'number' ? upstream.status : 0;
      return code === 'UNAUTHENTICATED' || (status >= 400 && status < 500 && upstream?.method !== 'GET');
    })
  );
}

/**
 * Whether a write of the root field at `key` was sent and got no answer (a timeout, a reset: its
 * error is `writeMayBeMade`): the REST API may have made it, or make it later. Not one never
 * sent (connection refused, an open circuit): else any caller's write during an outage kept every
 * result from being stored.
 */
function noAnswer(result: ExecutionResult, key: string): boolean {
  return (result.errors ?? []).some((e) => e.path?.[0] === key && writeMayBeMade(e));
}

function mutationWrites(args: ExecutionArgs, operation: OperationDefinitionNode): Write[] {
  const writes: Write[] = [];
  const mutationType = args.schema.getMutationType();
  // Root fields in fragments too (`mutation { ... on Mutation { removeMember(…) } }` writes as well);
  // one a `@skip` leaves out counts: one invalidation too many, never one too few.
  for (const selection of rootFields(operation, fragmentsOf(args.document))) {
    const name = selection.name.value;
    const field = mutationType?.getFields()[name];
    if (!field) continue;
    let input: Record<string, unknown> = {};
    try {
      input = (getArgumentValues(field, selection, args.variableValues ?? {}).input ?? {}) as Record<string, unknown>;
    } catch {
      /* bad variables: the mutation fails before any write */
    }
    const entities: CacheEntityRecord[] = [];
    const write: Write = { key: selection.alias?.value ?? name, entities, access: undefined };
    writes.push(write);
    const effects = USER_ACCESS_WRITES.get(name);
    for (const typename of [...(effects?.types ?? []), ...(UNNAMED_WRITE_TYPES.get(name) ?? [])]) entities.push({ typename });
    for (const [field, types] of UNNAMED_INPUT_TYPES)
      if (input[field] !== undefined) entities.push(...types.map((typename) => ({ typename })));
    for (const [typename, keys] of NODES_BY_INPUT_KEYS) {
      if (effects?.sparesOrganization && typename === 'Organization') continue;
      const values = keys.map((k) => input[k]);
      if (!values.every((v): v is string => typeof v === 'string' && v !== '')) continue;
      if (keys.some((k, i) => NUMBERED_KEYS.get(k)?.test(values[i]))) entities.push({ typename });
      else entities.push({ typename, id: encodeGlobalID(typename, encodeKeys(values)) });
    }
    const listType = LIST_WRITE.exec(name)?.[2];
    if (listType && args.schema.getType(listType)) entities.push({ typename: listType });
    const setsDefault = ACCESS_INPUT_FIELDS.some((f) => input[f] !== undefined);
    if (!ACCESS_WRITES.has(name) && !setsDefault) continue;
    const { userId } = input;
    write.access = USER_ACCESS_WRITES.has(name) && !setsDefault && typeof userId === 'string' && userId ? userId : 'global';
  }
  return writes;
}

function collectDeletedIds(data: unknown, into: CacheEntityRecord[]): void {
  if (Array.isArray(data)) return data.forEach((d) => collectDeletedIds(d, into));
  if (!data || typeof data !== 'object') return;
  for (const [key, value] of Object.entries(data)) {
    if (key === 'deletedId' && typeof value === 'string') {
      try {
        into.push({ typename: decodeGlobalID(value).typename, id: value });
      } catch {
        /* not a global id */
      }
    } else collectDeletedIds(value, into);
  }
}
