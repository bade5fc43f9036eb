/**
 * The command line: `start` (GraphQL gateway, with the embedded REST API unless an upstream URL is
 * configured) and `upstream` (the embedded REST API alone). Ctrl-C / SIGTERM drains, then exits 0.
 */
import { ConfigError, helpText, parseConfig, type Command, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { ensureDemo, type DemoTokens } from './upstream/demo/index.js';
import { buildUpstream, type Upstream } from './upstream/server.js';

interface Running {
  stop(): Promise<void>;
}

async function main(argv: string[]): Promise<void> {
  const command = argv[0] as Command;
  if (command !== 'start' && command !== 'upstream') {
    console.error('usage: index.ts start|upstream [options] (see --help)');
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
  const log = createLogger(config.logLevel);
  const running = command === 'upstream' ? await runUpstream(config, config.port, log) : await runGateway(config, log);
  onSignals(running, log);
}

async function runUpstream(config: Config, port: number, log: Logger): Promise<Running & { upstream: Upstream; demo: DemoTokens | null }> {
  const upstreamLog = createLogger(config.logLevel, 'rest');
  const upstream = buildUpstream({
    db: config.db,
    port,
    host: config.host,
    latencyMs: config.latencyMs,
    rateLimit: config.rateLimit ? { limit: config.rateLimit, windowMs: 60_000 } : undefined,
    log: config.logLevel === 'debug' ? (l) => upstreamLog.debug(`${l.method} ${l.path} ${l.status} ${l.ms.toFixed(1)}ms`) : undefined,
  });
  const url = await listen(() => upstream.start(), `REST API on port ${port}`);
  const demo = await ensureDemo(upstream, log);
  console.log(`REST: ${url}`);
  printDemoTokens(demo);
  return { upstream, demo, stop: () => upstream.stop() };
}

async function runGateway(config: Config, log: Logger): Promise<Running> {
  const embedded = config.upstreamUrl ? null : await runUpstream(config, config.upstreamPort, log);
  const { buildGateway } = await import('./gateway/app.js');
  const { exampleQuery } = await import('./gateway/example.js');
  const gateway = buildGateway({
    upstreamUrl: config.upstreamUrl ?? embedded!.upstream.url,
    port: config.port,
    host: config.host,
    log: createLogger(config.logLevel, 'gateway'),
    limits: {
      defaultPageSize: config.defaultPageSize,
      maxPageSize: config.maxPageSize,
      maxDepth: config.maxDepth,
      maxAliases: config.maxAliases,
      maxTokens: config.maxTokens,
      maxCost: config.maxCost,
    },
    rest: {
      connectTimeoutMs: config.upstreamConnectTimeoutMs,
      headersTimeoutMs: config.upstreamHeadersTimeoutMs,
      bodyTimeoutMs: config.upstreamBodyTimeoutMs,
      retries: config.upstreamRetries,
    },
    graphiql: embedded?.demo ? { token: embedded.demo.admin, query: exampleQuery(embedded.demo.organizationId) } : undefined,
  });
  const url = await listen(() => gateway.start(), `gateway on port ${config.port}`);
  console.log(`GraphQL: ${url.replace('127.0.0.1', 'localhost')}`);
  if (!embedded) console.log(`Upstream: ${config.upstreamUrl}`);
  return {
    async stop() {
      await gateway.stop();
      await embedded?.stop();
    },
  };
}

function printDemoTokens(demo: DemoTokens | null) {
  if (!demo) return;
  console.log(`Demo token: ${demo.admin}`);
  for (const [role, token] of Object.entries(demo.others)) console.log(`Demo token (${role}): ${token}`);
}

async function listen(start: () => Promise<string>, what: string): Promise<string> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') console.error(`Cannot start the ${what}: the port is in use (choose another with --port / --upstream-port)`);
    else if (code === 'EACCES') console.error(`Cannot start the ${what}: permission denied`);
    else console.error(`Cannot start the ${what}: ${(error as Error).message}`);
    process.exit(1);
  }
}

function onSignals(running: Running, log: Logger) {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
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
