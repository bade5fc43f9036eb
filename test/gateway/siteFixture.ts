/** Sites for the gateway site tests: created upstream (no REST endpoint creates a site), read by REST. */
import { createSite } from '../../src/upstream/domain/sites.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import type { TestStack } from '../helpers/gateway.js';

export interface TestSite {
  organizationId: string;
  siteId: string;
  /** REST base path of the site. */
  base: string;
  spaceIds: string[];
}

/** A site of acme publishing `spaces` fresh spaces, one section each. */
export function newSite(
  t: TestStack,
  options: { spaces?: number; title?: string; visibility?: string; published?: boolean; spaceVisibility?: string } = {},
): TestSite {
  const now = () => t.clock.now().toISOString();
  const organizationId = t.world.orgId;
  const spaceIds = Array.from(
    { length: options.spaces ?? 1 },
    (_, i) => insertSpace(t.upstream.db, now(), { organizationId, title: `Guide ${i + 1}`, visibility: options.spaceVisibility }).id,
  );
  const site = createSite(t.upstream.db, now(), {
    organizationId,
    title: options.title ?? 'Docs',
    visibility: options.visibility,
    published: options.published,
    spaceIds,
  });
  return { organizationId, siteId: site.id, base: `/orgs/${organizationId}/sites/${site.id}`, spaceIds };
}

/** Every item of a REST list, walked to its end as the admin. */
export async function restAll(t: TestStack, path: string): Promise<any[]> {
  return (await t.api.all(path, { limit: 1000 })).items;
}

/** `METHOD /path` of each REST call since the last reset. */
export const callPaths = (t: TestStack) => t.calls.map((c) => `${c.method} ${c.path}`);

/** The secret of a share link: the `shareKey` of its published URL. */
export const keyOf = (link: { urls: { published: string } }) => new URL(link.urls.published).searchParams.get('shareKey')!;

/** Variables naming the site, for queries that take `$org` and `$site`. */
export const siteVars = (s: TestSite) => ({ org: s.organizationId, site: s.siteId });
