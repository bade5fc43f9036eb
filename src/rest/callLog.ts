/** What is reported of each attempt at a REST call (`onRequest`), and a recorder tests count calls with. */
import type { ErrorCode } from './errors.js';
import type { HttpMethod } from './request.js';

/** One attempt at one REST call. */
export interface RestCall {
  method: HttpMethod;
  /** Path below the base URL, without the query string. */
  path: string;
  /** The path's template (`/spaces/{spaceId}`: routes.ts), for metric labels. */
  route: string;
  /** HTTP status, or null when no answer came. */
  status: number | null;
  ms: number;
  /** 1 for the first try, 2 for the first retry, … */
  attempt: number;
  /** Set when this attempt failed. */
  code?: ErrorCode;
}

/** Records every attempt (pass `log.record` as `onRequest`); tests count REST calls with it. */
export class RestCallLog {
  readonly calls: RestCall[] = [];
  readonly record = (call: RestCall): void => {
    this.calls.push(call);
  };

  /** Attempts matching method and path (either may be omitted). */
  count(method?: HttpMethod, path?: string): number {
    return this.calls.filter((c) => (!method || c.method === method) && (path === undefined || c.path === path)).length;
  }

  clear(): void {
    this.calls.length = 0;
  }
}
