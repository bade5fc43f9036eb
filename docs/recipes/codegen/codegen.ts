// GraphQL Codegen's client preset: typed documents from `graphql(...)` calls, and the persisted
// documents manifest the gateway runs (`--persisted-operations persisted-documents.json`).
// Run with `npx graphql-codegen --config codegen.ts` (@graphql-codegen/cli); paths as in this
// repository (in an app: `documents: ['src/**/*.ts']`, output `src/gql/`).
import type { Types } from '@graphql-codegen/plugin-helpers';

const config: Types.Config = {
  schema: 'schema.graphql',
  documents: ['docs/recipes/codegen/app.ts'],
  generates: {
    'docs/recipes/codegen/gql/': {
      preset: 'client',
      // Documents as strings (no graphql-tag at run time), each with its id in `__meta__.hash`;
      // imports with their `.js` and `import type` for types: without them the files neither
      // type-check nor load as Node ESM (`module: nodenext`, `verbatimModuleSyntax`). A custom
      // scalar is `unknown` unless mapped: the gateway writes `DateTime` as an ISO 8601 string.
      config: {
        documentMode: 'string',
        emitLegacyCommonJSImports: false,
        useTypeImports: true,
        scalars: { DateTime: 'string' },
      },
      // Ids are `sha256:<hex>`: send them as written.
      presetConfig: { persistedDocuments: true, fragmentMasking: false },
    },
  },
};
export default config;
