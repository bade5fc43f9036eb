/**
 * The least a GraphQL server on this stack costs: `node bench/bare.mjs <upstream /v1 URL> yoga|graphql`
 * serves `space(spaceId:) { title visibility }` from the REST API (one undici GET with the caller's
 * Authorization) with no plugin, check or bound of the gateway's: `yoga` through graphql-yoga with
 * its defaults (GraphiQL and logging off), `graphql` through node:http and graphql-js's `execute`
 * alone (documents parsed and validated once per text). Prints `BARE: <url>`. A measuring aid for
 * issue 21 (bench/bare.ts), not a server to run.
 */
import { createServer } from 'node:http';
import { execute, parse, validate, buildSchema } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { request } from 'undici';

const base = process.argv[2];
const mode = process.argv[3] ?? 'yoga';
const schema = buildSchema(`type Query { space(spaceId: String!): Space } type Space { title: String visibility: String }`);
const space = async (args, authorization) => {
  const res = await request(`${base}/spaces/${encodeURIComponent(args.spaceId)}`, { headers: { authorization } });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`REST ${res.statusCode}`);
  }
  return res.body.json();
};

let server;
if (mode === 'yoga') {
  const yoga = createYoga({
    schema,
    rootValue: { space: (args, context) => space(args, context.request.headers.get('authorization') ?? undefined) },
    graphqlEndpoint: '/graphql',
    graphiql: false,
    landingPage: false,
    logging: false,
  });
  server = createServer(yoga);
} else {
  const documents = new Map();
  const rootValue = { space: (args, context) => space(args, context.authorization) };
  server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const { query, variables, operationName } = JSON.parse(Buffer.concat(chunks).toString());
      let document = documents.get(query);
      if (!document) {
        document = parse(query);
        const errors = validate(schema, document);
        if (errors.length) throw errors[0];
        documents.set(query, document);
      }
      const result = await execute({
        schema,
        document,
        rootValue,
        contextValue: { authorization: req.headers.authorization },
        variableValues: variables,
        operationName,
      });
      const body = JSON.stringify(result);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
}
server.listen(0, '127.0.0.1', () => console.log(`BARE: http://127.0.0.1:${server.address().port}/graphql`));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
