import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES_FILE, routeTemplates, routesSource } from '../../scripts/routes.js';
import { path } from '../../src/rest/index.js';
import { OTHER_ROUTE, routeMatcher, routeTemplate } from '../../src/rest/routes.js';
import { ROUTE_TEMPLATES } from '../../src/rest/routeTemplates.js';

describe('REST route templates', () => {
  it('the committed list is what `npm run routes` writes from the seed', () => {
    expect(readFileSync(ROUTES_FILE, 'utf8')).toBe(routesSource(routeTemplates()));
  });

  it('every template maps a path of its shape back onto itself', () => {
    for (const template of ROUTE_TEMPLATES) {
      const concrete = template.replace(/\{[^}]+\}/g, (_, i: number) => `id-${i}`);
      expect(routeTemplate(concrete)).toBe(template);
    }
  });

  it('ids (also percent-encoded ones) become parameters; the query string is ignored', () => {
    expect(routeTemplate(path`/spaces/${'sp ace/1'}`)).toBe('/spaces/{spaceId}');
    expect(routeTemplate('/spaces/abc/change-requests/7/comments?limit=5')).toBe(
      '/spaces/{spaceId}/change-requests/{changeRequestId}/comments',
    );
    expect(routeTemplate('/orgs/org1/sites/site1/redirect')).toBe('/orgs/{organizationId}/sites/{siteId}/redirect');
    expect(routeTemplate('/orgs/org1/sites/site1/redirects')).toBe('/orgs/{organizationId}/sites/{siteId}/redirects');
  });

  it('fixed segments win over parameters, with backtracking', () => {
    const match = routeMatcher(['/a/{x}/c', '/a/b', '/a/b/{y}/d']);
    expect(match('/a/b')).toBe('/a/b');
    expect(match('/a/b/c')).toBe('/a/{x}/c');
    expect(match('/a/b/1/d')).toBe('/a/b/{y}/d');
  });

  it('an unknown path is `other`, never the path itself', () => {
    for (const p of ['/', '', 'spaces/x', '/spaces', '/spaces/x/secret-token-123', '/spaces//restore', '/spaces/x/']) {
      expect(routeTemplate(p)).toBe(OTHER_ROUTE);
    }
  });
});
