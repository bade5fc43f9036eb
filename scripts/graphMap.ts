/**
 * Where each REST endpoint lives in the graph (schema coordinates `Type.field`). The resource
 * table (src/schema/resources.ts) gives most of it: a list's GET is its connection field, a
 * lookup's GET its root field, each write its mutation. Written here by hand is only what the
 * table does not declare: hand-written fields and mutations (merge, reactions, permissions, ask,
 * links, `viewer`…). test/endpoints/graph.test.ts checks that every endpoint has an entry and that
 * every coordinate exists in the schema; docs/ENDPOINTS.md shows them.
 */
import { listPath, RESOURCES, writePath, type Resource } from '../src/schema/resources.js';

const CR = '/spaces/{spaceId}/change-requests/{changeRequestId}';
const COMMENT = `${CR}/comments/{commentId}`;
const REPLY = `${COMMENT}/replies/{commentReplyId}`;
const ORG = '/orgs/{organizationId}';
const SITE = `${ORG}/sites/{siteId}`;

/** Reads and writes of the resource table: lists, lookups and writes, each where the table puts it. */
function fromTable(): { reads: Record<string, string>; writes: Record<string, string[]> } {
  const reads: Record<string, string> = {};
  const writes: Record<string, string[]> = {};
  for (const r of Object.values(RESOURCES) as Resource[]) {
    if (r.list) reads[`GET ${listPath(r)}`] = `${r.list.on}.${r.list.field}`;
    if (r.lookup) reads[`GET ${r.path}`] = `Query.${r.lookup.field}`;
    for (const [name, w] of Object.entries(r.writes ?? {})) (writes[`${w.method} ${writePath(r, w)}`] ??= []).push(`Mutation.${name}`);
  }
  return { reads, writes };
}

/** GETs served by hand-written fields (a computed field, a list of another resource, a subscription). */
const specialReads: Record<string, string> = {
  [`GET ${CR}/pdf`]: 'ChangeRequest.pdfUrl',
  'GET /spaces/{spaceId}/links': 'Space.links',
  'GET /collections/{collectionId}/spaces': 'Collection.spaces',
  [`GET ${ORG}/members/{userId}/spaces`]: 'Member.spaces',
  [`GET ${ORG}/members/{userId}/teams`]: 'Member.teams',
  // Space and collection user permissions
  'GET /spaces/{spaceId}/permissions/users': 'Space.userPermissions',
  'GET /spaces/{spaceId}/permissions/aggregate': 'Space.aggregatePermissions',
  'GET /collections/{collectionId}/permissions/users': 'Collection.userPermissions',
  'GET /collections/{collectionId}/permissions/aggregate': 'Collection.aggregatePermissions',
  'GET /integrations/{integrationName}/installations': 'Integration.installations',
  [`GET ${ORG}/sso`]: 'Organization.ssoLogins',
  [`GET ${SITE}/redirect`]: 'Site.redirectLookup',
  [`GET ${SITE}/publishing/auth`]: 'Site.publishingAuth',
  // Organization AI ask (the streams are subscriptions)
  [`GET ${ORG}/ask/questions`]: 'Organization.suggestedQuestions',
  [`GET ${ORG}/ask/questions/stream`]: 'Subscription.suggestedQuestionsStream',
  [`GET ${ORG}/ask/stream`]: 'Subscription.askStream',
  'GET /user': 'Query.viewer',
};

/**
 * Writes that are read-only computations: API.md makes them query fields, not mutations
 * ("Read-only computations are query fields"). Their entry in `writeMutations` is that field.
 */
export const readOnlyWrites = new Set([`POST ${ORG}/ask`]);

const m = (...names: string[]) => names.map((name) => `Mutation.${name}`);

/** Writes served by hand-written mutations (after the table's on the same endpoint). */
const specialWrites: Record<string, string[]> = {
  [`PUT ${COMMENT}`]: m('addCommentReaction', 'removeCommentReaction'),
  [`PUT ${REPLY}`]: m('addCommentReplyReaction', 'removeCommentReplyReaction'),
  [`POST ${CR}/merge`]: m('mergeChangeRequest'),
  [`POST ${CR}/update`]: m('updateChangeRequestFromMain'),
  [`POST ${ORG}/invites`]: m('inviteToOrganization'),
  [`POST ${ORG}/invites/{inviteId}`]: m('joinOrganization'),
  [`POST ${ORG}/ping`]: m('pingOrganization'),
  // Space and collection user permissions
  'POST /spaces/{spaceId}/permissions': m('grantSpacePermission'),
  'DELETE /spaces/{spaceId}/permissions/users/{userId}': m('removeSpaceUserPermission'),
  'PATCH /spaces/{spaceId}/permissions/users/{userId}': m('updateSpaceUserPermission'),
  'POST /collections/{collectionId}/permissions': m('grantCollectionPermission'),
  'DELETE /collections/{collectionId}/permissions/users/{userId}': m('removeCollectionUserPermission'),
  'PATCH /collections/{collectionId}/permissions/users/{userId}': m('updateCollectionUserPermission'),
  // Organization AI ask: a read-only computation (see readOnlyWrites)
  [`POST ${ORG}/ask`]: ['Organization.ask'],
};

const table = fromTable();
const clash = Object.keys(specialReads).filter((k) => k in table.reads);
if (clash.length) throw new Error(`scripts/graphMap.ts: the resource table already serves ${clash.join(', ')}`);

/** Every GET: the field that serves it (a connection, a root lookup, a computed field or a subscription). */
export const readFields: Record<string, string> = { ...table.reads, ...specialReads };

/** Every POST/PUT/PATCH/DELETE: the mutation(s) that serve it (one per state transition). */
export const writeMutations: Record<string, string[]> = { ...table.writes };
for (const [key, coordinates] of Object.entries(specialWrites)) writeMutations[key] = [...(writeMutations[key] ?? []), ...coordinates];

/** The coordinates that serve an endpoint (`METHOD /path`), empty when unmapped. */
export function graphCoordinates(key: string): string[] {
  if (key in readFields) return [readFields[key]];
  return writeMutations[key] ?? [];
}
