/**
 * A gateway with OpenTelemetry tracing on, in a process of its own (tracing is process-global):
 * `node --import tsx test/helpers/tracedGateway.ts <upstreamUrl>` with the OTEL_* variables set.
 * Prints `{"url": …}` once listening; on SIGTERM stops, flushes its spans and exits. With
 * `--once` (and tracing off or on), answers one query, prints `{"status", "tracing"}` and exits.
 */
import { buildGateway } from '../../src/gateway/app.js';
import { startTracing } from '../../src/gateway/tracing.js';

const tracing = await startTracing();
const gateway = buildGateway({ upstreamUrl: process.argv[2], tracing });
if (process.argv[3] === '--once') {
  const res = await gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  console.log(JSON.stringify({ status: res.status, tracing: Boolean(tracing) }));
  await gateway.stop();
  await tracing?.shutdown();
  process.exit(0);
}
if (!tracing) throw new Error('Tracing is off: set OTEL_EXPORTER_OTLP_ENDPOINT');
console.log(JSON.stringify({ url: await gateway.start() }));
process.once('SIGTERM', async () => {
  await gateway.stop();
  await tracing.shutdown();
  process.exit(0);
});
