/**
 * The GraphQL Codegen recipe (docs/recipes/codegen/, shown in docs/CLIENTS.md): its codegen.ts
 * run through the client preset from npm (@graphql-codegen/core, as the CLI runs it) writes the
 * committed docs/recipes/codegen/gql/ (UPDATE_RECIPES=1 rewrites it); the gateway, started with
 * that persisted-documents.json and --persisted-only, runs the typed documents sent by their
 * `sha256:` ids as written (queries over GET, mutations over POST); they type-check as Node ESM.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { preset } from '@graphql-codegen/client-preset';
import { codegen } from '@graphql-codegen/core';
import { buildASTSchema, parse } from 'graphql';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import config from '../../docs/recipes/codegen/codegen.js';
import { CreateSpaceMutation, execute, SpacesQuery } from '../../docs/recipes/codegen/app.js';
import { loadPersistedOperations } from '../../src/gateway/plugins/usePersistedOperations.js';
import { startStack, type TestStack } from '../helpers/gateway.js';
import { shownInDocs } from './shownInDocs.js';

const root = join(import.meta.dirname, '../..');

/**
 * What `graphql-codegen --config codegen.ts` does for a client-preset output: the schema file, the
 * `graphql(\`…\`)` documents of the listed files, the preset's sections through the plugins.
 */
async function generate(): Promise<Map<string, string>> {
  const schema = parse(readFileSync(join(root, config.schema as string), 'utf8'));
  // The subgraph SDL (`extend schema @link`) builds too until schema.graphql is the client schema.
  const schemaAst = buildASTSchema(schema, { assumeValidSDL: true });
  const documents = (config.documents as string[]).flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/graphql\(`([\s\S]*?)`\)/g)].map((m) => ({
      location: file,
      document: parse(m[1]),
      rawSDL: m[1],
    })),
  );
  const [baseOutputDir, output] = Object.entries(config.generates)[0] as [string, { config: object; presetConfig: object }];
  const sections = await preset.buildGeneratesSection({
    baseOutputDir,
    schema,
    schemaAst,
    documents,
    config: output.config,
    presetConfig: output.presetConfig,
    plugins: [],
    pluginMap: {},
    documentTransforms: [],
    pluginContext: {},
  });
  return new Map(await Promise.all(sections.map(async (s) => [s.filename, await codegen({ ...s, schemaAst })] as [string, string])));
}

let t: TestStack;
let url: string;

beforeAll(async () => {
  const manifest = loadPersistedOperations(join(root, 'docs/recipes/codegen/gql/persisted-documents.json'));
  t = await startStack({ persistedOperations: { documents: manifest, only: true } });
  url = await t.gateway.start();
});
afterAll(() => t?.stop());

describe('GraphQL Codegen client preset recipe', () => {
  it('docs/CLIENTS.md shows the recipe as it is', () => {
    expect(shownInDocs('docs/recipes/codegen/codegen.ts'), 'docs/recipes/codegen/codegen.ts as docs/CLIENTS.md shows it').toBe(true);
    expect(shownInDocs('docs/recipes/codegen/app.ts'), 'docs/recipes/codegen/app.ts as docs/CLIENTS.md shows it').toBe(true);
  });

  it('the committed gql/ is what the client preset writes from codegen.ts', async () => {
    const files = await generate();
    expect([...files.keys()].map((f) => f.split('/').pop()).toSorted()).toEqual([
      'gql.ts',
      'graphql.ts',
      'index.ts',
      'persisted-documents.json',
    ]);
    for (const [file, content] of files) {
      if (process.env.UPDATE_RECIPES) writeFileSync(join(root, file), content);
      expect(readFileSync(join(root, file), 'utf8'), `${file} is stale: UPDATE_RECIPES=1 npx vitest run ${import.meta.filename}`).toBe(
        content,
      );
    }
    // Ids as the manifest writes them: `sha256:<hex>`.
    expect(Object.keys(JSON.parse(files.get('docs/recipes/codegen/gql/persisted-documents.json')!))).toEqual([
      SpacesQuery.__meta__!.hash,
      CreateSpaceMutation.__meta__!.hash,
    ]);
    expect(SpacesQuery.__meta__!.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('the typed documents type-check as Node ESM (module nodenext, verbatimModuleSyntax), DateTime as string', () => {
    // The repository's own settings (`moduleResolution: bundler`) take extensionless imports; an
    // app on Node ESM does not, nor loads them at run time (`ERR_MODULE_NOT_FOUND`).
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      verbatimModuleSyntax: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    };
    // A caller's use of a custom scalar: `DateTime` reads as the string the gateway writes.
    const use = join(root, 'docs/recipes/codegen/use.ts');
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    host.readFile = (file) =>
      file === use
        ? "import type { SpacesQuery } from './gql/graphql.js';\n" +
          'export const at = (r: SpacesQuery) => r.organization?.spaces?.nodes.map((s) => new Date(s.createdAt));\n'
        : readFile(file);
    const program = ts.createProgram([join(root, 'docs/recipes/codegen/app.ts'), use], options, host);
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    expect(errors).toEqual([]);
  });

  it('typed documents run by id under --persisted-only: a query over GET, a mutation over POST', async () => {
    const token = t.world.users.admin.token;
    const org = t.world.orgId;
    const created = await execute(url, token, CreateSpaceMutation, { org, title: 'Typed' });
    expect(created.createSpace?.space?.title).toBe('Typed');
    const spaces = await execute(url, token, SpacesQuery, { org, first: 10 });
    expect(spaces.organization?.title).toBe('Acme');
    expect(spaces.organization?.spaces?.nodes.every((s) => !Number.isNaN(Date.parse(s.createdAt)))).toBe(true);
    expect(spaces.organization?.spaces?.nodes.map((s) => s.id)).toContain(created.createSpace?.space?.id);
  });
});
