import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleQuery } from '../../src/gateway/example.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
beforeAll(async () => {
  t = await startStack({ graphiql: { token: 'demo-token-123', query: exampleQuery('org-1') } });
});
afterAll(() => t.stop());

describe('GraphiQL', () => {
  it('is served at /graphql to browsers, self-contained, pre-filled with the demo token and the example query', async () => {
    const res = await t.gateway.yoga.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    // No asset from a CDN: GraphiQL must work on a machine without internet access.
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:[^>]+stylesheet|stylesheet[^>]+href=["']?https?:/);
    expect(html).toContain('Bearer demo-token-123');
    expect(html).toContain(JSON.stringify(exampleQuery('org-1')).slice(1, 60));
  });

  it('the example query runs against the demo-like data without errors', async () => {
    const res = await t.gql(exampleQuery(t.world.orgId));
    expect(res.errors).toBeUndefined();
    expect(res.data?.organization.title).toBe('Acme');
  });
});
