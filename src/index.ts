/**
 * The command line: `start` (GraphQL gateway, with the embedded REST API unless an upstream URL is
 * configured) and `upstream` (the embedded REST API alone). Ctrl-C / SIGTERM drains, then exits 0.
 */
import { ConfigError, helpText, parseConfig, type Command, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { acceptWarnings } from './serverBounds.js';
// The embedded upstream's code (SQLite, demo content, PDF) loads only when it runs: a gateway
// started with --upstream-url never loads it (see runUpstream).
import type { DemoTokens } from './upstream/demo/index.js';
import type { Db } from './upstream/db/index.js';
import type { Upstream } from './upstream/server.js';

interface Running {
  stop(): Promise<void>;
}

async function main(argv: string[]): Promise<void> {
  const command = argv[0] as Command;
  if (command !== 'start' && command !== 'upstream') {
    const help = argv[0] === '--help' || argv[0] === '-h';
    const usage = 'usage: tsx src/index.ts start|upstream [options]\n\n' + helpText('start') + '\n\n' + helpText('upstream');
    if (help) return console.log(usage);
    console.error(`${argv[0] === undefined ? 'No command given' : `Unknown command ${argv[0]}`}; ${usage}`);
    process.exit(2);
  }
  const args = argv.slice(1);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(helpText(command));
    return;
  }
  let config: Config;
  try {
    config = parseConfig(command, args);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Configuration error: ${error.message}`);
    process.exit(2);
  }
  // Tracing takes the standard OTEL_* variables (not settings): its endpoint is checked here, before anything starts.
  const tracingError = command === 'start' ? (await import('./gateway/tracing.js')).tracingEndpointError() : undefined;
  if (tracingError) {
    console.error(`Configuration error: ${tracingError}`);
    process.exit(2);
  }
  const log = createLogger(config.logLevel);
  onUnhandledRejection(log);
  const running =
    command === 'upstream' ? await runUpstream(config, config.host, config.port, '--port', log) : await runGateway(config, log);
  onSignals(running, log);
}

async function runUpstream(
  config: Config,
  host: string,
  port: number,
  portFlag: string,
  log: Logger,
): Promise<Running & { upstream: Upstream; demo: DemoTokens | null }> {
  const [{ ensureDemo }, { openDatabase }, { buildUpstream }] = await Promise.all([
    import('./upstream/demo/index.js'),
    import('./upstream/db/index.js'),
    import('./upstream/server.js'),
  ]);
  const db = openDb(openDatabase, config.db, config.dbMaxBytes);
  const demo = await ensureDemo(db, log).catch((error: Error) => fail(`Cannot start: ${error.message}`, error.cause));
  const upstreamLog = createLogger(config.logLevel, 'rest');
  const upstream = buildUpstream({
    db,
    port,
    host,
    latencyMs: config.latencyMs,
    rateLimit: config.rateLimit ? { limit: config.rateLimit, windowMs: 60_000 } : undefined,
    log: config.logLevel === 'debug' ? (l) => upstreamLog.debug(`${l.method} ${l.path} ${l.status} ${l.ms.toFixed(1)}ms`) : undefined,
    acceptFailed: acceptWarnings(upstreamLog, 'REST API'),
  });
  const url = await listen(() => upstream.start(), `REST API on ${host}:${port}`, portFlag);
  console.log(`REST: ${url}`);
  printDemoTokens(demo);
  return {
    upstream,
    demo,
    async stop() {
      await upstream.stop();
      db.close();
    },
  };
}

/** Opens (creating and migrating) the SQLite database, or stops with a message naming it. */
function openDb(openDatabase: (file: string, maxBytes: number) => Db, file: string, maxBytes: number): Db {
  try {
    return openDatabase(file, maxBytes);
  } catch (error) {
    return fail(`Cannot open the database ${file} (--db / DOCS_GRAPH_DB): ${(error as Error).message}`);
  }
}

function fail(message: string, cause?: unknown): never {
  console.error(message);
  if (cause instanceof Error && cause.stack) console.error(cause.stack);
  process.exit(1);
}

async function runGateway(config: Config, log: Logger): Promise<Running> {
  const persisted = config.persistedOperations ? await readPersistedOperations(config.persistedOperations, config.limits) : undefined;
  // The embedded REST API serves the gateway: on loopback whatever `--host` says (the `upstream`
  // command serves it on `--host`).
  const embedded = config.upstreamUrl ? null : await runUpstream(config, '127.0.0.1', config.upstreamPort, '--upstream-port', log);
  // OpenTelemetry (when OTEL_EXPORTER_OTLP_ENDPOINT is set) starts before the gateway loads.
  const tracing = await (await import('./gateway/tracing.js')).startTracing();
  const { buildGateway } = await import('./gateway/app.js');
  const { exampleQuery } = await import('./gateway/example.js');
  const gateway = buildGateway({
    // The settings as parsed (those buildGateway takes; see GatewaySettings), then what is built from them.
    ...config,
    upstreamUrl: config.upstreamUrl ?? embedded!.upstream.url,
    log: createLogger(config.logLevel, 'gateway'),
    rest: { ...config.rest, logCalls: config.logLevel === 'debug' },
    metrics: config.metricsPath === 'off' ? false : { endpoint: config.metricsPath },
    tracing,
    persistedOperations: { documents: persisted, only: config.persistedOnly, apqMaxBytes: config.apqMaxBytes, apqQuota: config.apqQuota },
    graphiql: embedded?.demo ? { token: embedded.demo.admin, query: exampleQuery(embedded.demo.organizationId) } : undefined,
  });
  const url = await listen(() => gateway.start(), `gateway on ${config.host}:${config.port}`, '--port');
  console.log(`GraphQL: ${url.replace('127.0.0.1', 'localhost')}`);
  if (!embedded) console.log(`Upstream: ${config.upstreamUrl}`);
  if (tracing) log.info('OpenTelemetry tracing on (OTEL_EXPORTER_OTLP_ENDPOINT)');
  return {
    async stop() {
      await gateway.stop();
      await embedded?.stop();
      await tracing?.shutdown();
    },
  };
}

/** The --persisted-operations file, its documents checked against `limits`, or a stop with a message naming it (before anything starts). */
async function readPersistedOperations(file: string, limits: Config['limits']): Promise<Record<string, string>> {
  const { loadPersistedOperations } = await import('./gateway/plugins/usePersistedOperations.js');
  try {
    return loadPersistedOperations(file, limits);
  } catch (error) {
    return fail(`--persisted-operations / PERSISTED_OPERATIONS: ${(error as Error).message}`);
  }
}

function printDemoTokens(demo: DemoTokens | null) {
  if (!demo) return;
  console.log(`Demo token: ${demo.admin}`);
  for (const [role, token] of Object.entries(demo.others)) console.log(`Demo token (${role}): ${token}`);
}

async function listen(start: () => Promise<string>, what: string, portFlag: string): Promise<string> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') return fail(`Cannot start the ${what}: the port is already in use (choose another with ${portFlag})`);
    if (code === 'EACCES') return fail(`Cannot start the ${what}: permission denied (choose a port above 1023 with ${portFlag})`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return fail(`Cannot start the ${what}: no such interface (check --host)`);
    return fail(`Cannot start the ${what}: ${(error as Error).message}`);
  }
}

/**
 * A promise rejected with no handler is a bug; Node ends the process on one, so any client that
 * found such a path could take the gateway down. It is logged (the error's class and where it was
 * thrown, never its message, which may hold an argument value) and the process goes on. Tests run
 * the gateway in their own process without this handler, so such a bug still fails them.
 */
function onUnhandledRejection(log: Logger) {
  process.on('unhandledRejection', (reason) => {
    const error = reason instanceof Error ? reason : undefined;
    const at = error?.stack?.split('\n').find((line) => line.trimStart().startsWith('at '));
    log.error('unhandled promise rejection (a bug): the gateway goes on', {
      error: error?.name ?? typeof reason,
      ...(at ? { at: at.trim() } : {}),
    });
  });
}

function onSignals(running: Running, log: Logger) {
  let stopping = false;
  const stop = async (signal: string) => {
    // A second signal while draining (Ctrl-C twice, or an operator's second kill): exit now, as a
    // REST call or a stream that does not end (an upstream holding a write) could hold the drain.
    if (stopping) {
      log.warn(`${signal} again: exiting without waiting for open requests and streams`);
      process.exit(1);
    }
    stopping = true;
    log.info(`${signal}: draining open requests and streams`);
    try {
      await running.stop();
      process.exit(0);
    } catch (error) {
      log.error('shutdown failed', { error: String(error) });
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exit(1);
});
