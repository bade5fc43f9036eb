import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const require = createRequire(import.meta.url);

/**
 * Files that need a module registry of their own: `vi.mock` of a module that other files load
 * first (a shared registry would hand them the real one, or the mock to the next file).
 */
const ISOLATED = ['test/upstream/openapi.test.ts'];

/**
 * Files that wait longest (child processes, a `dist/` build, many requests): they start first, so
 * that no worker is left running one of them alone at the end. Vitest orders the others longest
 * first from its cache of the last run (or largest first when there is none).
 */
const SLOW = ['test/cli.test.ts', 'test/upstream/robustness.test.ts', 'test/lean.test.ts', 'test/gateway/tracing.test.ts'];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOW.findIndex((path) => f.moduleId.endsWith(path));
      return i < 0 ? SLOW.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  // graphql 16 ships CJS (main) and ESM (module) builds; Node (and so every dependency) loads the
  // CJS one, so tests must too, or two graphql instances meet ("Cannot use GraphQLScalarType …").
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    sequence: { sequencer: SlowFirst },
    // One process per core (vitest's default leaves one core to itself, so a 2-core machine ran
    // every file in turn); the files wait on sockets and child processes as much as they compute.
    maxWorkers: '100%',
    // Files share each worker's modules: the schema (src/schema) is built once per worker, not once
    // per file (~3 s each). Tests start their own servers and restore what they change.
    poolOptions: { forks: { isolate: false } },
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, poolOptions: { forks: { isolate: true } } } },
    ],
  },
});
