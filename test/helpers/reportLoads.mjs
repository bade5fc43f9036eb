// `node --import ./test/helpers/reportLoads.mjs …`: prints `loaded <url>` on stderr for each module
// whose URL contains REPORT_LOADS (tests check what a process loads, e.g. nothing of OpenTelemetry).
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
  export async function resolve(specifier, context, next) {
    const resolved = await next(specifier, context);
    if (resolved.url.includes(${JSON.stringify(process.env.REPORT_LOADS ?? '')})) process.stderr.write('loaded ' + resolved.url + '\\n');
    return resolved;
  }
`),
);
