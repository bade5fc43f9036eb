/**
 * Introspection serves the client schema (schema.graphql): the graph without the federation
 * plumbing (`_entities`, `_service`, `_Any`, `_Entity`, `_Service`), so GraphiQL, Relay, Codegen and
 * Apollo tooling see what a frontend queries. A router still calls `_service { sdl }` and
 * `_entities` as before (validation and execution use the subgraph schema); only an operation that
 * introspects (`__schema`, `__type`) without selecting them runs against the client schema.
 *
 * Such a request is marked (`isIntrospecting`) for the response cache, which leaves it alone: it
 * never keeps `__schema` results, yet it rewrote their document and walked the 414 KB result for
 * entities on every request; useIntrospectionCache.ts keeps introspection results for everyone.
 *
 * An introspection-only operation (every root field `__schema`, `__type` or `__typename`) is
 * executed in a worker thread (introspectionWorker.ts), not on the event loop: its executor is
 * replaced here, first of the plugins, so the access check, the limits and the kept results still
 * come before it (a refusal or a kept result stops execution), and the response-bytes bound after.
 */
import type { Plugin } from 'graphql-yoga';
import { clientSchemaOf, introspectsClientSchema } from '../../schema/lib/federation.js';
import type { IntrospectionWorker } from '../lib/introspectionWorker.js';
import { operationVerdict } from '../lib/operationVerdict.js';
import { isIntrospectionOnly } from './useIntrospectionCache.js';

const introspecting = new WeakSet<Request>();

/** Whether the request's operation introspects the client schema (known once it executes). */
export const isIntrospecting = (request: Request): boolean => introspecting.has(request);

export function useClientIntrospection(worker: IntrospectionWorker): Plugin {
  const introspects = operationVerdict(
    (operation, fragments) => operation.operation === 'query' && introspectsClientSchema(operation, Object.fromEntries(fragments)),
  );
  return {
    onExecute({ args, setExecuteFn }) {
      if (!introspects(args.document, args.operationName)) return;
      args.schema = clientSchemaOf(args.schema);
      if (isIntrospectionOnly(args.document, args.operationName)) setExecuteFn(worker.execute);
      const { request } = args.contextValue as { request?: Request };
      if (request) introspecting.add(request);
    },
  };
}
