/**
 * `npm run bench -- overhead` (issue 10): the cost of metrics and tracing. Three gateways (child
 * processes, as `npm start` runs them) over one upstream: both off (`--metrics-path off`, no
 * OTEL_* variable), metrics on (`/metrics` scraped every second during the run), metrics and
 * tracing on (OTEL_EXPORTER_OTLP_ENDPOINT pointing at a small local OTLP/HTTP sink this bench
 * starts). One-resource query throughput and CPU time per request at 10 connections, in interleaved
 * rounds, as ratios to "both off".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  f1,
  f2,
  graphqlRequest,
  load,
  machine,
  median,
  setting,
  startGateway,
  startUpstream,
  table,
  writeSection,
  type Child,
} from './lib.js';
import { ONE_RESOURCE } from './workloads.js';

const SECONDS = setting('BENCH_SECONDS', 3);
const ROUNDS = setting('BENCH_ROUNDS', 5);
const CONNECTIONS = setting('BENCH_CONNECTIONS', 10);

/** An OTLP/HTTP receiver that accepts everything and counts export requests and bytes. */
async function startSink(): Promise<{ url: string; stats: { requests: number; bytes: number }; close(): Promise<void> }> {
  const stats = { requests: 0, bytes: 0 };
  const server: Server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (stats.bytes += chunk.length));
    req.on('end', () => {
      if (req.url?.startsWith('/v1/traces')) stats.requests++;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stats, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function runOverhead(): Promise<void> {
  const host = machine();
  const upstream = await startUpstream({ spaces: 2, changeRequests: 1, comments: 0, replies: 0 }, 0);
  const sink = await startSink();
  const children: Child[] = [];
  const scrapes = { ok: 0, failed: 0, series: 0 };
  try {
    const configs: Array<{ name: string; child: Child; scrape: boolean }> = [];
    const add = async (name: string, args: string[], env: Record<string, string>, scrape: boolean) => {
      const child = await startGateway(['--upstream-url', upstream.url, ...args], env);
      children.push(child);
      configs.push({ name, child, scrape });
    };
    await add('metrics and tracing off', ['--metrics-path', 'off'], {}, false);
    await add('metrics on (scraped every second)', [], {}, true);
    await add('metrics and tracing on', [], { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'docs-graph-bench' }, true);

    const { token, spaceIds } = upstream.seeded;
    const once = graphqlRequest('/graphql', token, ONE_RESOURCE, { space: spaceIds[0] });
    const scrape = async (child: Child) => {
      const res = await fetch(child.url.replace(/\/graphql$/, '/metrics')).catch(() => null);
      const text = res?.ok ? await res.text() : '';
      if (!res?.ok) return void scrapes.failed++;
      scrapes.ok++;
      scrapes.series = Math.max(scrapes.series, text.split('\n').filter((l) => l && !l.startsWith('#')).length);
    };
    const samples = new Map(configs.map((c) => [c.name, [] as Array<{ rate: number; errors: number; cpuMs: number }>]));
    for (const c of configs) await load(new URL(c.child.url).origin, CONNECTIONS, 1, once); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of round % 2 ? [...configs].reverse() : configs) {
        const scraper = c.scrape ? setInterval(() => void scrape(c.child), 1000) : undefined;
        const cpu = c.child.cpuMs();
        const run = await load(new URL(c.child.url).origin, CONNECTIONS, SECONDS, once);
        clearInterval(scraper);
        samples.get(c.name)!.push({ ...run, cpuMs: (c.child.cpuMs() - cpu) / Math.max(1, run.done) });
      }
    }
    await new Promise((r) => setTimeout(r, 1500)); // the span processor's last batch
    const summary = configs.map((c) => {
      const s = samples.get(c.name)!;
      return {
        name: c.name,
        rate: median(s.map((x) => x.rate)),
        cpuMs: median(s.map((x) => x.cpuMs)),
        errors: s.reduce((n, x) => n + x.errors, 0),
      };
    });
    const base = summary[0];
    const body = [
      '## Metrics and tracing overhead (`npm run bench -- overhead`)',
      '',
      `Machine: ${host}. Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: one-resource query, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per configuration, medians.`,
      '',
      table(
        ['configuration', 'req/s', 'ratio', 'CPU ms per request', 'ratio', 'errors'],
        summary.map((s) => [s.name, f1(s.rate), f2(s.rate / base.rate), f2(s.cpuMs), f2(s.cpuMs / base.cpuMs), s.errors]),
      ),
      '',
      `/metrics scrapes: ${scrapes.ok} answered (up to ${scrapes.series} series), ${scrapes.failed} failed. OTLP sink: ${sink.stats.requests} trace exports, ${f1(sink.stats.bytes / 1024)} KiB.`,
    ].join('\n');
    console.log(body);
    writeSection('overhead', body);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await sink.close();
    await upstream.stop();
  }
}
