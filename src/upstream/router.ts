import type { RequestContext } from './context.js';

/** What a handler returns: a JSON value (200), `undefined` (204, no body), a Reply, or RAW when
 * the handler wrote the response itself (PDF, Server-Sent Events). */
export type HandlerResult = unknown;
export type Handler = (ctx: RequestContext) => HandlerResult | Promise<HandlerResult>;

export const RAW = Symbol('raw response');

export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
  ) {}
}

/** 201 with a created resource, whose `urls.location` is also sent as the Location header. */
export function created(ctx: RequestContext, body: { urls: { location: string } }): Reply {
  ctx.res.setHeader('location', body.urls.location);
  return new Reply(201, body);
}

export interface RouteOptions {
  /** The route may be called without a token (share-key access); the caller is then anonymous. */
  anonymous?: boolean;
}

interface Route {
  method: string;
  pattern: string;
  segments: string[];
  handler: Handler;
  options: RouteOptions;
}

export interface Match {
  route: Route;
  params: Record<string, string>;
}

/** A tiny router over path templates such as `/spaces/{spaceId}/change-requests`. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): void {
    this.routes.push({ method, pattern, segments: pattern.split('/').filter(Boolean), handler, options });
  }

  get = (p: string, h: Handler, o?: RouteOptions) => this.add('GET', p, h, o);
  post = (p: string, h: Handler, o?: RouteOptions) => this.add('POST', p, h, o);
  put = (p: string, h: Handler, o?: RouteOptions) => this.add('PUT', p, h, o);
  patch = (p: string, h: Handler, o?: RouteOptions) => this.add('PATCH', p, h, o);
  delete = (p: string, h: Handler, o?: RouteOptions) => this.add('DELETE', p, h, o);

  /** The matching route, or the allowed methods when only the path matches. */
  match(method: string, path: string): Match | { allowed: string[] } | null {
    const parts = path.split('/').filter(Boolean);
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { route, params };
      allowed.push(route.method);
    }
    return allowed.length ? { allowed } : null;
  }

  list(): Array<{ method: string; pattern: string }> {
    return this.routes.map(({ method, pattern }) => ({ method, pattern }));
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (seg.startsWith('{') && seg.endsWith('}')) {
      try {
        params[seg.slice(1, -1)] = decodeURIComponent(parts[i]);
      } catch {
        return null;
      }
    } else if (seg !== parts[i]) return null;
  }
  return params;
}
