/**
 * `node scripts/graphiql-assets.mjs`: writes GraphiQL's assets (compressed, hashed) to dist/graphiql/,
 * so that a gateway reads them at its first GraphiQL visit instead of building them then (about
 * 0.9 s of CPU; src/gateway/lib/graphiqlAssets.ts). Run by scripts/start.mjs after it builds dist/.
 */
const { PREBUILT_DIR, writeGraphiqlAssets } = await import('../dist/gateway/lib/graphiqlAssets.js');
await writeGraphiqlAssets(PREBUILT_DIR);
