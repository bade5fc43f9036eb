/**
 * The response cache: Yoga's response-cache plugin (over @envelop/response-cache) with the gateway's
 * choices.
 *
 * - Private per caller: the session is a hash of the caller's Authorization header (callerHash.ts),
 *   so the cache key of a result holds no token; callers without a token share one session.
 * - Entities are nodes by their global id (`Type:<id>`); the plugin adds `id` to every selection
 *   set of a node type, so a node is recorded even when the client did not select its id.
 * - A mutation invalidates, on every replica sharing the store: the nodes of its payload (the
 *   plugin), the node a `deletedId` names, the nodes its input names by REST keys
 *   (`organizationId`, `spaceId` + `changeRequestId`, …: the parents whose lists a create or delete
 *   changes), every cached result holding a node of the type it creates or deletes (root lists,
 *   empty lists), and, for writes that change who may see what (members, teams, permissions,
 *   transfers, moves), every result holding an object with `permissions`. The mutation's response
 *   is sent only once these invalidations are done, so the caller's next read, on any replica,
 *   sees the write.
 * - Results with errors, mutations and subscriptions are never cached; a result lives the TTL of
 *   its shortest-lived type (`ttlPerType`).
 * - Store: process memory (LRU), or Redis (@envelop/response-cache-redis) when a Redis handle is
 *   given. Redis keys are `dg:rc:…` and hold hashes only (no token, no raw id). While Redis is down
 *   the cache is bypassed (every request is a miss, nothing is stored).
 *
 * `extensions.responseCache.hit` says whether a result came from the cache.
 */
import { createHash } from 'node:crypto';
import { createRedisCache } from '@envelop/response-cache-redis';
import { isAsyncIterable, type Plugin as EnvelopPlugin } from '@envelop/core';
import type { CacheEntityRecord } from '@envelop/response-cache';
import {
  createInMemoryCache,
  useResponseCache as useYogaResponseCache,
  type Cache,
} from '@graphql-yoga/plugin-response-cache';
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import {
  getArgumentValues,
  getOperationAST,
  isObjectType,
  Kind,
  type ExecutionArgs,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../../log.js';
import { encodeKeys } from '../../schema/lib/node.js';
import type { RedisHandle } from '../redis.js';
import { callerHash } from '../lib/callerHash.js';

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

/** Writes that change who may see what (and so every `permissions` flag and accessible list). */
const ACCESS_WRITE = /Permission|Member|Team|^transfer|^move(Space|Collection)$|^joinOrganization$|^inviteToOrganization$/;
/** Writes that add or remove an object of the named type from lists. */
const LIST_WRITE = /^(create|delete|duplicate|restore|publish|unpublish|remove)([A-Z]\w*)$/;

const PREFIX = 'dg:rc:';
const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

export function useResponseCache(options: ResponseCacheOptions): Plugin[] {
  const { log } = options;
  const types = ttlPerType(options.ttlMs);
  const maxTtl = Math.max(options.ttlMs, ...Object.values(types));
  const store = tracked(
    options.redis ? redisStore(options.redis, maxTtl, log) : createInMemoryCache({ max: options.maxEntries ?? 1000 }),
  );
  // Requests that came through Yoga's params step (not graphql-sse's own path, which the plugin cannot key).
  const viaParams = new WeakSet<Request>();
  return [
    { onParams: ({ request }) => void viaParams.add(request) },
    useYogaResponseCache({
      cache: store,
      ttl: options.ttlMs,
      ttlPerSchemaCoordinate: types,
      session: (request) => callerHash(request),
      enabled: (request) => viaParams.has(request),
      buildResponseCacheKey: ({ documentString, operationName, variableValues, sessionId }) =>
        `${PREFIX}r:${sha(JSON.stringify([documentString, operationName ?? '', variableValues ?? {}, sessionId ?? '']))}`,
      includeExtensionMetadata: true,
    }),
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

type TrackedCache = Cache & { settled(): Promise<unknown> };

/** A store whose invalidations can be awaited (the plugin starts them without waiting). */
function tracked(cache: Cache): TrackedCache {
  const pending = new Set<Promise<unknown>>();
  return {
    get: (key) => cache.get(key),
    set: (...args) => cache.set(...args),
    invalidate(entities) {
      const p = Promise.resolve(cache.invalidate(entities)).finally(() => pending.delete(p));
      pending.add(p);
      return p;
    },
    settled: () => Promise.all(pending),
  };
}

/**
 * @envelop/response-cache-redis with namespaced, hashed keys and bounded memory: the sets that map
 * an entity or type to results expire after the longest TTL (renewed on each write), and a type is
 * invalidated through its own set, without the library's `KEYS` scan. Any Redis failure is a miss.
 */
function redisStore(redis: RedisHandle, maxTtlMs: number, log: Logger): Cache {
  const { client } = redis;
  const typeKey = (typename: string) => `${PREFIX}t:${typename}`;
  const entitiesKey = (responseId: string) => `${responseId}:entities`;
  const entityKey = (typeKeyOfEntity: string, id: string | number) => `${PREFIX}e:${sha(`${typeKeyOfEntity}:${id}`)}`;
  const inner = createRedisCache({
    redis: client,
    buildRedisEntityId: entityKey,
    buildRedisOperationResultCacheKey: entitiesKey,
  });
  const namespaced = (entities: Iterable<CacheEntityRecord>) => [...entities].map((e) => ({ ...e, typename: typeKey(e.typename) }));
  const degrade = <T>(what: string, fallback: T) => (error: Error) => {
    log.debug(`response cache: redis ${what} failed, bypassed`, { error: error.name });
    return fallback;
  };
  const up = () => redis.isRedisReady();
  return {
    async get(key) {
      if (!up()) return undefined;
      return Promise.resolve(inner.get(key)).catch(degrade('get', undefined));
    },
    async set(responseId, result, entities, ttl) {
      if (!up()) return;
      const records = namespaced(entities);
      try {
        await inner.set(responseId, result, records, ttl);
        const sets = records.flatMap((e) => (e.id == null ? [e.typename] : [e.typename, entityKey(e.typename, e.id)]));
        const pipeline = client.pipeline();
        for (const key of new Set([...sets, entitiesKey(responseId)])) pipeline.pexpire(key, maxTtlMs);
        await pipeline.exec();
      } catch (error) {
        degrade('set', undefined)(error as Error);
      }
    },
    async invalidate(entities) {
      if (!up()) return;
      const records = namespaced(entities);
      try {
        const typeKeys = records.filter((e) => e.id == null).map((e) => e.typename);
        for (const key of typeKeys) {
          const responseIds = await client.smembers(key);
          await client.del([key, ...responseIds, ...responseIds.map(entitiesKey)]);
        }
        await inner.invalidate(records.filter((e) => e.id != null));
      } catch (error) {
        degrade('invalidate', undefined)(error as Error);
      }
    },
  };
}

/** The invalidations the plugin does not derive from a mutation's payload; the response waits for all. */
function useMutationInvalidation(store: TrackedCache): EnvelopPlugin {
  return {
    onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'mutation') return;
      const entities = mutationEntities(args, operation);
      return {
        async onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) collectDeletedIds(result.data, entities);
          if (entities.length) store.invalidate(entities);
          await store.settled();
        },
      };
    },
  };
}

function mutationEntities(args: ExecutionArgs, operation: OperationDefinitionNode): CacheEntityRecord[] {
  const entities: CacheEntityRecord[] = [];
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
      if (values.every((v) => typeof v === 'string' && v)) entities.push({ typename, id: encodeGlobalID(typename, encodeKeys(values as string[])) });
    }
    const listType = LIST_WRITE.exec(name)?.[2];
    if (listType && args.schema.getType(listType)) entities.push({ typename: listType });
    if (ACCESS_WRITE.test(name)) for (const typename of typesWithPermissions(args.schema)) entities.push({ typename });
  }
  return entities;
}

const permissionTypes = new WeakMap<GraphQLSchema, string[]>();

function typesWithPermissions(schema: GraphQLSchema): string[] {
  let names = permissionTypes.get(schema);
  if (!names) {
    names = Object.values(schema.getTypeMap())
      .filter((t) => isObjectType(t) && !t.name.startsWith('__') && 'permissions' in t.getFields())
      .map((t) => t.name);
    permissionTypes.set(schema, names);
  }
  return names;
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
