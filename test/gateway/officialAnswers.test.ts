/**
 * Answers GitBook's OpenAPI description allows that the embedded upstream never gives (where the
 * seed is silent, the description decides): a scripted upstream serves them over real HTTP, and the
 * graph must read them, not fail on them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { json, startBadServer, type BadServer } from '../helpers/badServer.js';
import type { GqlResult } from '../helpers/gateway.js';

const REDIRECTS = '/v1/orgs/o1/sites/site1/redirects';
const redirect = (id: string, destination: object) => ({
  object: 'site-redirect',
  id,
  source: `/${id}`,
  draft: false,
  captureWildcard: false,
  permanent: true,
  destination,
  createdAt: '2026-01-02T03:04:05.000Z',
});

let bad: BadServer;
let gateway: Gateway;
let url: string;

beforeAll(async () => {
  bad = await startBadServer();
  bad.fallback = (req, res) =>
    req.url?.split('?')[0] === REDIRECTS
      ? json(200, {
          count: 4,
          items: [
            redirect('r1', { kind: 'site-section', siteSectionId: 'sec1' }),
            redirect('r2', { kind: 'site-space', siteSpaceId: 'ss1' }),
            redirect('r3', { kind: 'site-page', siteSpaceId: 'ss1', pageId: 'p1' }),
            redirect('r4', { kind: 'external', url: 'https://example.com/elsewhere' }),
          ],
        })(req, res)
      : json(404, { error: { code: 404, message: 'nope' } })(req, res);
  gateway = buildGateway({ upstreamUrl: bad.url, rest: { retries: 0 } });
  url = await gateway.start();
});
afterAll(async () => {
  await gateway.stop();
  await bad.stop();
});

async function gql(query: string): Promise<GqlResult> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer tok-official' },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as GqlResult;
}

describe('site redirect destinations of every kind the description has', () => {
  it('are read: their kind and the ids or URL each carries', async () => {
    const res = await gql(`{ site(organizationId: "o1", siteId: "site1") {
      redirects { nodes { source destination { kind siteSectionId siteSpaceId pageId url } } } } }`);
    expect(res.errors).toBeUndefined();
    const none = { siteSectionId: null, siteSpaceId: null, pageId: null, url: null };
    expect(res.data!.site.redirects.nodes).toEqual([
      { source: '/r1', destination: { ...none, kind: 'SITE_SECTION', siteSectionId: 'sec1' } },
      { source: '/r2', destination: { ...none, kind: 'SITE_SPACE', siteSpaceId: 'ss1' } },
      { source: '/r3', destination: { ...none, kind: 'SITE_PAGE', siteSpaceId: 'ss1', pageId: 'p1' } },
      { source: '/r4', destination: { ...none, kind: 'EXTERNAL', url: 'https://example.com/elsewhere' } },
    ]);
    expect(bad.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([`GET ${REDIRECTS}`]);
  });
});
