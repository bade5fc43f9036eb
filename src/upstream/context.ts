import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodies, type BodyName } from '../api/rules.js';
import { checkFields, checkValue, ValidationError, type BodyOf, type Fields, type Rule } from '../api/validate.js';
import type { Clock } from './clock.js';
import type { Db } from './db/index.js';
import { badRequest, unauthorized } from './errors.js';
import type { Query } from './query.js';

export interface UserRow {
  id: string;
  display_name: string;
  email: string;
  photo_url: string | null;
  created_at: string;
}

/** Hooks the upstream offers to its parts (e.g. the OpenAPI fetcher), set by buildUpstream. */
export interface UpstreamServices {
  db: Db;
  clock: Clock;
  /** Origin of this server, e.g. `http://127.0.0.1:4010`. */
  origin: () => string;
  /** Background work (OpenAPI processing, …) the server waits for on stop. */
  track: (work: Promise<unknown>) => void;
  /** Aborted when the server stops. */
  shutdown: AbortSignal;
  /** Time allowed to fetch an OpenAPI spec from its URL, in ms. */
  openApiFetchTimeoutMs: number;
  /** Time allowed to parse an OpenAPI spec (in a child process), in ms. */
  openApiParseTimeoutMs: number;
  /** OpenAPI source URLs fetched although their address is loopback or private (a test hook). */
  openApiFetchAllow?: (url: URL) => boolean;
  /** Pause between two events of the streamed ask endpoints, in ms. */
  askStreamDelayMs: number;
  /** Called when a streamed ask endpoint ends (tests observe that a disconnect stops the work). */
  onAskStreamEnd?: (end: AskStreamEnd) => void;
}

export interface AskStreamEnd {
  stream: 'answer' | 'questions';
  /** `aborted`: the client went away (or the server stopped) before the last event. */
  reason: 'complete' | 'aborted';
  /** Events written. */
  events: number;
}

/** A request body as its rules type it (src/api/validate.ts). */
export type { BodyOf };

/** One REST request: its parameters, its validated inputs and the caller. */
export class RequestContext {
  constructor(
    readonly services: UpstreamServices,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly params: Record<string, string>,
    readonly query: Query,
    private readonly rawBody: unknown,
    /** The authenticated user, or null for an anonymous (share-key) call. */
    readonly caller: UserRow | null,
    /** Aborted when the client goes away or the server stops. */
    readonly signal: AbortSignal,
  ) {}

  get db(): Db {
    return this.services.db;
  }

  /** The current time as an ISO string, from the injectable clock. */
  now(): string {
    return this.services.clock.now().toISOString();
  }

  /** `http://host:port/v1`: the base of `urls.location`. */
  get apiBase(): string {
    return `${this.services.origin()}/v1`;
  }

  /** Base of `urls.app` / `urls.published` links (served by nobody; the hosted API's are on app.gitbook.com). */
  get appBase(): string {
    return `${this.services.origin()}/app`;
  }

  /** A path parameter, checked against a rule of src/api when given (400 naming the parameter). */
  param(name: string, rule?: Rule): string {
    const value = this.params[name];
    try {
      if (rule) checkValue(rule, value, name);
    } catch (e) {
      if (e instanceof ValidationError) throw badRequest(e.message);
      throw e;
    }
    return value;
  }

  /** The authenticated user; 401 for an anonymous caller. */
  user(): UserRow {
    if (!this.caller) throw unauthorized();
    return this.caller;
  }

  /** The JSON body, checked against rules of src/api (a key of `bodies`, or a Fields object). */
  body<K extends BodyName>(name: K, options?: { optional?: boolean }): BodyOf<(typeof bodies)[K]>;
  body<F extends Fields>(fields: F, options?: { optional?: boolean }): BodyOf<F>;
  body(rules: BodyName | Fields, options: { optional?: boolean } = {}): Record<string, unknown> {
    const fields = typeof rules === 'string' ? bodies[rules] : rules;
    const value = this.rawBody;
    if (value === undefined) {
      if (options.optional) return {};
      throw badRequest('body: a JSON object is required');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('body: must be a JSON object');
    try {
      checkFields(fields, value as Record<string, unknown>);
    } catch (e) {
      if (e instanceof ValidationError) throw badRequest(e.message);
      throw e;
    }
    return value as Record<string, unknown>;
  }

  /** The JSON body without rules (for bodies whose checks are written by hand). */
  json(): unknown {
    return this.rawBody;
  }
}
