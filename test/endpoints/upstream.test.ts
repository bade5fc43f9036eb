import { afterAll, describe, expect, it } from 'vitest';
import { buildUpstream } from '../../src/upstream/server.js';
import { endpointKey, loadEndpoints, templateShape } from '../../scripts/endpoints.js';

describe('the embedded upstream', () => {
  const upstream = buildUpstream({ db: ':memory:' });
  afterAll(() => upstream.stop());

  it('registers a route for every endpoint of the seed and every official extra', () => {
    const routes = new Set(upstream.router.list().map((r) => `${r.method} ${templateShape(r.pattern)}`));
    const missing = loadEndpoints()
      .filter((e) => !routes.has(`${e.method} ${templateShape(e.path)}`))
      .map(endpointKey);
    expect(missing, `endpoints without a route:\n${missing.join('\n')}`).toEqual([]);
  });
});
