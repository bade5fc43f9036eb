/**
 * One `onRequest` hook for several plugins. The server adapter runs each plugin's `onRequest`
 * through its promise helpers, which allocate a few closures and promise-likes per hook and
 * request (about a tenth of a small query's garbage went to the gateway's four hooks that answer
 * nothing on `POST /graphql`: body limit, /ready, graphql-sse, /metrics). The merged hook runs
 * them in the same order, on the same request (as replaced by `setRequest`), synchronously while
 * they are, and stops at the first that answers, as the adapter does. The plugins' other hooks
 * stay where they were.
 */
import type { Plugin } from 'graphql-yoga';
import { runHooks } from './runHooks.js';

type OnRequest = NonNullable<Plugin['onRequest']>;
type Payload = Parameters<OnRequest>[0];

export function mergeRequestHooks(plugins: Plugin[]): Plugin[] {
  const hooks = plugins.flatMap((p) => (p.onRequest ? [p.onRequest.bind(p) as OnRequest] : []));
  if (hooks.length < 2) return plugins;
  const onRequest = (payload: Payload): void | Promise<void> => {
    let ended = false;
    const sub: Payload = {
      ...payload,
      setRequest(next) {
        sub.request = next;
        payload.setRequest(next);
      },
      endResponse(response) {
        ended = true;
        payload.endResponse(response);
      },
    };
    return runHooks(hooks, sub, () => ended);
  };
  let merged = false;
  return plugins.map((plugin) => {
    if (!plugin.onRequest) return plugin;
    const { onRequest: _, ...rest } = plugin;
    if (merged) return rest;
    merged = true;
    return { ...rest, onRequest };
  });
}
