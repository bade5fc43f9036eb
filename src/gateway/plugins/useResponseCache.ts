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
 *   (`organizationId`, `spaceId` + `changeRequestId`, …: the parents whose lists a create or delete
 *   changes) and every cached result holding a node of the type it creates or deletes (root lists,
 *   empty lists).
 * - A write that changes who may read what (ACCESS_WRITES: permissions, members, teams, SAML/SSO,
 *   share links, site audience, transfers and moves, a `defaultLevel`) renews the store's access
 *   generation, which is part of every result key: every result cached before it, of any type and
 *   any caller, anonymous share-key reads included, is out of reach on every replica.
 * - The mutation's response is sent only once these are done, so the caller's next read, on any
 *   replica, sees the write.
 * - Results with errors, mutations and subscriptions are never cached; a result lives the TTL of
 *   its shortest-lived type (`ttlPerType`).
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
import { getArgumentValues, getOperationAST, Kind, type ExecutionArgs, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../../log.js';
import { encodeKeys } from '../../schema/lib/node.js';
import { RESOURCES } from '../../schema/resources.js';
import type { RedisHandle } from '../redis.js';
import { callerHash } from '../lib/callerHash.js';
import { isIntrospecting } from './useClientIntrospection.js';
import { CACHE_PREFIX, memoryCache, redisCache, sha, type GenerationalCache } from '../lib/responseCacheStores.js';

export interface ResponseCacheOptions {
  /** Default time to live of a cached result, in ms (> 0). */
  ttlMs: number;
  /** Shared store across replicas; process memory without it. */
  redis?: RedisHandle;
  log: Logger;
  /** Called with each query result's hit (true) or miss (false), e.g. for metrics. */
  onResponseCache?: (hit: boolean) => void;
  /** Most results kept by the in-process store (default 1000). */
  maxEntries?: number;
}

/** TTL per type relative to the default: the integrations catalog changes rarely, review threads often. */
export function ttlPerType(ttlMs: number): Record<string, number> {
  const short = Math.max(1, Math.round(ttlMs / 2));
  return { Integration: ttlMs * 6, ChangeRequest: short, Comment: short, CommentReply: short };
}

/** REST keys in a mutation's input → the global id of the node they name (outermost key first). */
const NODES_BY_INPUT_KEYS: Array<[typename: string, keys: string[]]> = [
  ['Organization', ['organizationId']],
  ['Space', ['spaceId']],
  ['Collection', ['collectionId']],
  ['Integration', ['integrationName']],
  ['User', ['userId']],
  ['Site', ['organizationId', 'siteId']],
  ['Team', ['organizationId', 'teamId']],
  ['Member', ['organizationId', 'userId']],
  ['ChangeRequest', ['spaceId', 'changeRequestId']],
  ['Comment', ['spaceId', 'changeRequestId', 'commentId']],
];

/**
 * Writes that change who may read what: every write of the resources that grant access (members,
 * teams, SAML providers, share links; from the resource table), and the hand-written ones. Their
 * success or failure alike renews the access generation (a failed write may have been made).
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
  // A site's audience (visibility, publication, visitor authentication).
  'updateSite',
  'publishSite',
  'unpublishSite',
  'updateSitePublishingAuth',
]);
/** Input fields that change access whatever the mutation (a space's or collection's default role). */
const ACCESS_INPUT_FIELDS = ['defaultLevel'];

/** Writes that add or remove an object of the named type from lists. */
const LIST_WRITE = /^(create|delete|duplicate|restore|publish|unpublish|remove)([A-Z]\w*)$/;

export function useResponseCache(options: ResponseCacheOptions): Plugin[] {
  const { log, redis } = options;
  const types = ttlPerType(options.ttlMs);
  const store = tracked(redis ? redisCache(redis, { log, now: redis.now }) : memoryCache(options.maxEntries ?? 1000));
  // Requests that came through Yoga's params step (not graphql-sse's own path, which the plugin cannot key).
  const viaParams = new WeakSet<Request>();
  // The library answers 304 to an `If-None-Match` naming a cache key; its ETag is not that key here.
  const { onRequest: _notModified, ...responseCache } = useYogaResponseCache({
    cache: store,
    ttl: options.ttlMs,
    ttlPerSchemaCoordinate: types,
    session: (request) => callerHash(request),
    // Not for introspection, which it never keeps (useClientIntrospection.ts; known at execution).
    enabled: (request) => viaParams.has(request) && !isIntrospecting(request),
    buildResponseCacheKey: async ({ documentString, operationName, variableValues, sessionId }) => {
      const generation = await store.generation();
      return `${CACHE_PREFIX}r:${sha(JSON.stringify([generation ?? '', documentString, operationName ?? '', variableValues ?? {}, sessionId ?? '']))}`;
    },
    includeExtensionMetadata: true,
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
    responseCache,
    useMutationInvalidation(store) as Plugin,
    {
      onExecutionResult({ result }) {
        if (!options.onResponseCache || isAsyncIterable(result) || Array.isArray(result)) return;
        const hit = (result as { extensions?: { responseCache?: { hit?: unknown } } }).extensions?.responseCache?.hit;
        if (typeof hit === 'boolean') options.onResponseCache(hit);
      },
    },
  ];
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

/** A store whose invalidations can be awaited (the plugin starts them without waiting). */
function tracked(cache: GenerationalCache): TrackedCache {
  const pending = new Set<Promise<unknown>>();
  return {
    get: (key) => cache.get(key),
    set: (...args) => cache.set(...args),
    generation: () => cache.generation(),
    bump: () => cache.bump(),
    invalidate(entities) {
      const p = Promise.resolve(cache.invalidate(entities)).finally(() => pending.delete(p));
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
      const { entities, changesAccess } = mutationEntities(args, operation);
      return {
        async onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) collectDeletedIds(result.data, entities);
          if (entities.length) void store.invalidate(entities); // awaited by settled() below
          if (changesAccess) await store.bump();
          await store.settled();
        },
      };
    },
  };
}

function mutationEntities(
  args: ExecutionArgs,
  operation: OperationDefinitionNode,
): { entities: CacheEntityRecord[]; changesAccess: boolean } {
  const entities: CacheEntityRecord[] = [];
  let changesAccess = false;
  const mutationType = args.schema.getMutationType();
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const name = selection.name.value;
    const field = mutationType?.getFields()[name];
    if (!field) continue;
    let input: Record<string, unknown> = {};
    try {
      input = (getArgumentValues(field, selection, args.variableValues ?? {}).input ?? {}) as Record<string, unknown>;
    } catch {
      /* bad variables: the mutation fails before any write */
    }
    for (const [typename, keys] of NODES_BY_INPUT_KEYS) {
      const values = keys.map((k) => input[k]);
      if (values.every((v) => typeof v === 'string' && v))
        entities.push({ typename, id: encodeGlobalID(typename, encodeKeys(values as string[])) });
    }
    const listType = LIST_WRITE.exec(name)?.[2];
    if (listType && args.schema.getType(listType)) entities.push({ typename: listType });
    if (ACCESS_WRITES.has(name) || ACCESS_INPUT_FIELDS.some((f) => input[f] !== undefined)) changesAccess = true;
  }
  return { entities, changesAccess };
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
