/**
 * Starts the embedded REST API on a loopback port with an in-memory database, and gives a REST
 * client that checks every JSON response against the official OpenAPI description.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { SETTINGS } from '../../src/config.js';
import { ManualClock } from '../../src/upstream/clock.js';
import { buildUpstream, type UpstreamOptions } from '../../src/upstream/server.js';
import { checkResponse } from './conformance.js';
import { createWorld, type World } from './world.js';

export interface RestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export type Query = Record<string, string | number | boolean | undefined>;

export class RestClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  /** Same server, another caller. */
  as(token: string | undefined): RestClient {
    return new RestClient(this.baseUrl, token);
  }

  get = <T = any>(path: string, query?: Query) => this.request<T>('GET', path, undefined, query);
  post = <T = any>(path: string, body?: unknown, query?: Query) => this.request<T>('POST', path, body, query);
  put = <T = any>(path: string, body?: unknown, query?: Query) => this.request<T>('PUT', path, body, query);
  patch = <T = any>(path: string, body?: unknown, query?: Query) => this.request<T>('PATCH', path, body, query);
  delete = <T = any>(path: string, query?: Query) => this.request<T>('DELETE', path, undefined, query);

  url(path: string, query?: Query): string {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  async request<T>(method: string, path: string, body?: unknown, query?: Query): Promise<RestResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.url(path, query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const isJson = (res.headers.get('content-type') ?? '').includes('application/json');
    const parsed = isJson && text ? JSON.parse(text) : text || undefined;
    if (isJson) checkResponse(method, path, res.status, parsed);
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** Walks a list to its end, page by page; returns every item and the number of pages. */
  async all<T = any>(path: string, query: Query = {}): Promise<{ items: T[]; pages: number }> {
    const items: T[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const res = await this.get(path, { ...query, page });
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      items.push(...res.body.items);
      page = res.body.next?.page;
      pages++;
    } while (page);
    return { items, pages };
  }
}

export interface TestUpstream {
  url: string;
  clock: ManualClock;
  upstream: ReturnType<typeof buildUpstream>;
  world: World;
  /** A client with the token of a world user (default: the admin of the main organization). */
  api: RestClient;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startUpstream(options: Omit<UpstreamOptions, 'db' | 'clock'> = {}): Promise<TestUpstream> {
  const clock = new ManualClock();
  const upstream = buildUpstream({ ...options, db: ':memory:', clock });
  const url = await upstream.start();
  const world = createWorld(upstream.db, clock);
  const stop = () => upstream.stop();
  return {
    url,
    clock,
    upstream,
    world,
    api: new RestClient(url, world.users.admin.token),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * `npm run upstream -- --db <file> --port 0` as a child process (with `nodeFlags`, e.g. a heap
 * limit), pushed to `running` for the caller to kill; resolves with its REST URL and admin token.
 */
export async function spawnUpstream(
  db: string,
  running: ChildProcess[],
  nodeFlags: string[] = [],
): Promise<{ child: ChildProcess; url: string; token: string; output(): string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !SETTINGS.some((s) => s.env === k)));
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'src/index.ts', 'upstream', '--db', db, '--port', '0'], {
    cwd: new URL('../..', import.meta.url).pathname,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`upstream exited (${code}):\n${out}`)));
    child.stdout!.on('data', (d) => {
      out += d;
      const url = out.match(/^REST: (\S+)$/m)?.[1];
      const token = out.match(/^Demo token: (\S+)$/m)?.[1];
      if (url && token) resolve({ child, url, token, output: () => out });
    });
  });
}
