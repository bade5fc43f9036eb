/**
 * A gateway with OpenTelemetry tracing on, in a process of its own (tracing is process-global):
 * `node --import tsx test/helpers/tracedGateway.ts <upstreamUrl>` with the OTEL_* variables set.
 * Prints `{"url": …}` once listening; on SIGTERM stops, flushes its spans and exits.
 */
import { buildGateway } from '../../src/gateway/app.js';
import { startTracing } from '../../src/gateway/tracing.js';

const tracing = await startTracing();
if (!tracing) throw new Error('Tracing is off: set OTEL_EXPORTER_OTLP_ENDPOINT');
const gateway = buildGateway({ upstreamUrl: process.argv[2], tracing });
console.log(JSON.stringify({ url: await gateway.start() }));
process.once('SIGTERM', async () => {
  await gateway.stop();
  await tracing.shutdown();
  process.exit(0);
});
