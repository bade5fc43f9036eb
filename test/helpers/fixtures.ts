/**
 * Test setup shared by the REST and gateway test files: clients per world user, the test clock's
 * `now`, REST-created spaces and collections, sites seeded straight into the database, sample texts.
 * `fixtures(() => t)` reads the running upstream lazily, so it can be called before `beforeAll`.
 */
import { expect } from 'vitest';
import { createSite } from '../../src/upstream/domain/sites.js';
import { insertSpace } from '../../src/upstream/domain/spaces.js';
import type { RestClient, TestUpstream } from './upstream.js';
import type { WorldUser } from './world.js';

/** A string of `n` characters, for limits just under and just over. */
export const chars = (n: number) => 'x'.repeat(n);

/** A minimal valid OpenAPI 3 document (one `GET /pets`). */
export const VALID_OPENAPI_YAML = `openapi: 3.0.3
info:
  title: Pets
  version: 1.0.0
paths:
  /pets:
    get:
      responses:
        '200':
          description: ok
`;

export function fixtures(upstream: () => TestUpstream) {
  /** A REST client with the token of a world user. */
  const as = (who: WorldUser): RestClient => upstream().api.as(upstream().world.users[who].token);
  /** The test clock's current time (each reading ticks it by 1 ms). */
  const now = () => upstream().clock.now().toISOString();

  /** A REST client per world user; `admin` is the main client itself. */
  const clients = (): Record<WorldUser, RestClient> => {
    const users = upstream().world.users;
    const byUser = Object.fromEntries(Object.keys(users).map((who) => [who, as(who as WorldUser)]));
    return { ...byUser, admin: upstream().api } as Record<WorldUser, RestClient>;
  };

  /** POSTs to an organization's list and expects 201; answers the created resource. */
  const created = async (list: 'spaces' | 'collections', body: Record<string, unknown>, client: RestClient, orgId: string) => {
    const res = await client.post(`/orgs/${orgId}/${list}`, body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const newSpace = (body: Record<string, unknown> = {}, client: RestClient = upstream().api, orgId = upstream().world.orgId) =>
    created('spaces', body, client, orgId);
  const newCollection = (body: Record<string, unknown> = {}, client: RestClient = upstream().api, orgId = upstream().world.orgId) =>
    created('collections', body, client, orgId);

  /**
   * A fresh site of the main organization with one section per title (a space each, inserted in
   * the database): its id and its section ids by title.
   */
  const siteWithSections = (titles: string[], options: { published?: boolean } = {}) => {
    const { db } = upstream().upstream;
    const organizationId = upstream().world.orgId;
    const spaceIds = titles.map((title) => insertSpace(db, now(), { organizationId, title }).id);
    const siteId = createSite(db, now(), { organizationId, title: 'Site', spaceIds, ...options }).id;
    const rows = db.prepare('SELECT id, title FROM site_sections WHERE site_id = ?').all(siteId) as Array<{ id: string; title: string }>;
    const ids = Object.fromEntries(rows.map((r) => [r.title, r.id])) as Record<string, string>;
    return { siteId, ids };
  };

  return { as, now, clients, newSpace, newCollection, siteWithSections };
}
