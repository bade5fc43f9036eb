import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // graphql 16 ships CJS (main) and ESM (module) builds; Node (and so every dependency) loads the
  // CJS one, so tests must too, or two graphql instances meet ("Cannot use GraphQLScalarType …").
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
