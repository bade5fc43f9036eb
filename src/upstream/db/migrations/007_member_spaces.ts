import type { Migration } from './index.js';

/**
 * The order of a member's spaces (`GET /orgs/{organizationId}/members/{userId}/spaces`: newest
 * first). Without it, each batch of that keyset-paginated list (src/upstream/pagination.ts) sorted
 * every space of the organization again: 200 sorts of 20,000 spaces for one page of a member who
 * has a role on few of them.
 */
const sql = `
CREATE INDEX spaces_org_created ON spaces(organization_id, created_at, id);
`;

const migration: Migration = { version: 7, name: 'member spaces', sql };
export default migration;
