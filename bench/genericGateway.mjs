/**
 * Puts a generic OpenAPI gateway, the one issue 21 compares with, in a directory outside the
 * project: `node bench/genericGateway.mjs DIR` installs Hive Gateway and GraphQL Mesh's composer
 * there (about 530 MB, so not a dependency of the project) and composes a supergraph from the REST
 * API's official OpenAPI description (`@gitbook/api`'s spec/openapi.json), as a team would that
 * points a generic gateway at this API. Then `BENCH_GENERIC_GATEWAY=DIR npm run bench` runs it
 * beside the gateway in the varied one-resource cells (`getSpaceById`, its name for `space`).
 *
 * Two operations of the description (the site's adaptive schema, read and update) are left out:
 * Mesh's composer stops on them ("Cannot get field 'additionalProperties'"), and without them it
 * composes the other 261 paths.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bench/genericGateway.mjs DIR');
  process.exit(2);
}
/** The versions measured in docs/BENCHMARKS.md. */
const PACKAGES = ['@graphql-hive/gateway@2.15.1', '@omnigraph/openapi@0.112.4', '@graphql-mesh/compose-cli@1.8.2', 'graphql@16'];
/** Operations Mesh's composer cannot compose (see above). */
const LEFT_OUT = new Set(['getSiteAdaptiveSchema', 'updateSiteAdaptiveSchema']);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

const run = (command, args) => {
  const { status } = spawnSync(command, args, { cwd: dir, stdio: 'inherit' });
  if (status !== 0) throw new Error(`${command} ${args.join(' ')}: exit ${status}`);
};

mkdirSync(dir, { recursive: true });
writeFileSync(resolve(dir, 'package.json'), JSON.stringify({ name: 'generic-gateway', private: true, type: 'module' }));
run('npm', ['install', '--no-audit', '--no-fund', ...PACKAGES]);

const spec = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@gitbook/api/spec/openapi.json'), 'utf8'));
for (const [path, item] of Object.entries(spec.paths)) {
  for (const method of METHODS) if (LEFT_OUT.has(item[method]?.operationId)) delete item[method];
  if (!METHODS.some((m) => item[m])) delete spec.paths[path];
}
writeFileSync(resolve(dir, 'openapi.json'), JSON.stringify(spec));
writeFileSync(
  resolve(dir, 'mesh.config.ts'),
  `import { defineConfig } from '@graphql-mesh/compose-cli';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';

export const composeConfig = defineConfig({
  subgraphs: [
    {
      sourceHandler: loadOpenAPISubgraph('GitBook', {
        source: './openapi.json',
        endpoint: '{env.UPSTREAM_URL}',
        operationHeaders: { Authorization: '{context.headers.authorization}' },
      }),
    },
  ],
});
`,
);
run('npx', ['mesh-compose', '-o', 'supergraph.graphql']);
console.log(`generic gateway ready in ${dir}: BENCH_GENERIC_GATEWAY=${dir} npm run bench`);
