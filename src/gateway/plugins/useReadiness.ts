/**
 * `GET /ready` through Yoga's readiness plugin: 200 while every required check passes, 503
 * otherwise, with `{"status", "checks": {name: "ok" | "failing"}}` (no error text: it could name
 * internals). An optional check (Redis, unless the operator says it is required: the gateway works
 * without it) is reported but does not make the replica unready, so a shared dependency's outage
 * never drains every replica at once.
 * Each check gets `timeoutMs` (a hanging dependency fails the check, it does not hang the probe);
 * the result is reused for `cacheMs`, and concurrent probes share one run, so load balancers
 * polling often do not multiply the calls to the dependencies. (`GET /health`, liveness, is Yoga's
 * built-in health check.)
 */
import type { Plugin } from 'graphql-yoga';
import { request } from 'undici';
import { systemClock, type Clock } from '../../rest/index.js';
import { requestPath } from '../lib/requestPath.js';

/** The probe's user agent (tracing leaves its calls out). */
export const READY_USER_AGENT = 'docs-graph-ready';

export interface ReadyCheck {
  name: string;
  /** Resolves (to anything but `false`) when the dependency is usable; rejecting or `false` fails it. */
  check(signal: AbortSignal): Promise<unknown>;
  /** Reported but not counted: a failing optional check leaves `/ready` at 200 (default: required). */
  optional?: boolean;
}

export interface ReadinessOptions {
  /** Longest wait for one check, ms (default 1000). */
  timeoutMs?: number;
  /** How long a result is reused, ms (default 1000). */
  cacheMs?: number;
  /** Time of the timeouts and of the reuse (default the process's; tests pass a fake one). */
  clock?: Clock;
}

interface Report {
  ready: boolean;
  checks: Record<string, 'ok' | 'failing'>;
}

export function useReadiness(checks: ReadyCheck[], options: ReadinessOptions = {}): Plugin {
  const timeoutMs = options.timeoutMs ?? 1000;
  const cacheMs = options.cacheMs ?? 1000;
  const clock = options.clock ?? systemClock;
  let cached: { report: Report; at: number } | undefined;
  let running: Promise<Report> | undefined;
  const probe = (): Report | Promise<Report> => {
    if (cached && clock.now() - cached.at < cacheMs) return cached.report;
    running ??= runChecks(checks, timeoutMs, clock).then((report) => {
      cached = { report, at: clock.now() };
      running = undefined;
      return report;
    });
    return running;
  };
  const endpoint = '/ready';
  // Yoga's useReadinessCheck tests a URLPattern (and parses a URL) on every request; the path is
  // read from the request's URL string instead (about 3 % of the CPU of a small query).
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (requestPath(request.url) !== endpoint) return;
      const answer = (report: Report) =>
        endResponse(
          new fetchAPI.Response(JSON.stringify({ status: report.ready ? 'ready' : 'unavailable', checks: report.checks }), {
            status: report.ready ? 200 : 503,
            headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
          }),
        );
      const report = probe();
      if (!(report instanceof Promise)) return answer(report);
      return report.then(answer);
    },
  };
}

async function runChecks(checks: ReadyCheck[], timeoutMs: number, clock: Clock): Promise<Report> {
  const results = await Promise.all(checks.map((c) => passes(c, timeoutMs, clock)));
  return {
    ready: results.every((ok, i) => ok || checks[i].optional),
    checks: Object.fromEntries(checks.map((c, i) => [c.name, results[i] ? 'ok' : 'failing'])),
  };
}

/** Runs one check within `timeoutMs`, even if it ignores its signal. */
async function passes(c: ReadyCheck, timeoutMs: number, clock: Clock): Promise<boolean> {
  const controller = new AbortController();
  let timer: ReturnType<Clock['setTimeout']> | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = clock.setTimeout(() => {
      controller.abort();
      resolve(false);
    }, timeoutMs);
  });
  try {
    const result = await Promise.race([c.check(controller.signal).then((v) => v !== false), timedOut]);
    return result;
  } catch {
    return false;
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}

/**
 * The upstream answers: `GET {baseUrl}/user` without credentials (a cheap call every GitBook API
 * answers, with 401) gets any HTTP answer below 500. Its own connection, not the REST client's
 * pool, retries or circuit: the probe reports the upstream, not the client's state.
 */
export function upstreamCheck(baseUrl: string): ReadyCheck {
  const url = `${baseUrl.replace(/\/+$/, '')}/user`;
  return {
    name: 'upstream',
    async check(signal) {
      const res = await request(url, { method: 'GET', signal, headers: { accept: 'application/json', 'user-agent': READY_USER_AGENT } });
      await res.body.dump();
      return res.statusCode < 500;
    },
  };
}
