import type { Space as RestSpace } from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList, type ConnectionResult } from '../lib/connection.js';
import { EditMode, LinkStatus, Role, SpaceVisibility } from '../lib/enums.js';
import { orNull, permissionsType, urlsType } from '../lib/fields.js';
import { restPath } from '../lib/node.js';
import { edge, resourceNode } from '../lib/resource.js';

/** A space (`/spaces/{spaceId}`); its list, writes and staleness are in src/schema/resources.ts. */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    Space: RestSpace;
  }
}

export const Space = resourceNode('Space');

const SpacePermissions = permissionsType('SpacePermissions', 'with the space', ['access', 'admin', 'edit', 'comment', 'merge', 'review']);

const SpaceUrls = urlsType('SpaceUrls', 'a space', ['location', 'app'], ['published', 'public', 'icon']);

Space.implement({
  description: 'A space: a container of documentation content.',
  fields: (t) => ({
    title: t.exposeString('title'),
    emoji: t.exposeString('emoji'),
    visibility: t.field({ type: SpaceVisibility, resolve: (s) => s.visibility as never }),
    createdAt: t.field({ type: 'DateTime', resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (s) => s.updatedAt }),
    deletedAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => orNull(s.deletedAt) }),
    editMode: t.field({ type: EditMode, nullable: true, resolve: (s) => orNull(s.editMode) as never }),
    urls: t.field({ type: SpaceUrls, resolve: (s) => s.urls as never }),
    revision: t.exposeString('revision', { description: 'Id of the active revision.' }),
    defaultLevel: t.field({
      type: Role,
      nullable: true,
      description: 'Default role on the content for members of the organization; null when inherited (REST `inherit`).',
      resolve: (s) => (s.defaultLevel === 'inherit' ? null : (s.defaultLevel ?? null)) as never,
    }),
    gitSync: t.field({ type: 'JSON', nullable: true, resolve: (s) => orNull(s.gitSync) }),
    visitorAuth: t.field({ type: 'JSON', nullable: true, resolve: (s) => orNull(s.visitorAuth) }),
    commentsCount: t.int({ description: 'Count of open comments (REST `comments`).', resolve: (s) => s.comments }),
    changeRequestsCount: t.int({ description: 'Total change requests (REST `changeRequests`).', resolve: (s) => s.changeRequests }),
    changeRequestsOpenCount: t.int({ resolve: (s) => s.changeRequestsOpen }),
    changeRequestsDraftCount: t.int({ resolve: (s) => s.changeRequestsDraft }),
    permissions: t.field({ type: SpacePermissions, resolve: (s) => s.permissions }),
    organization: edge(t, 'Organization', (s) => [s.organization]),
    parent: edge(t, 'Collection', (s) => [s.parent], { description: 'The collection holding the space.' }),
  }),
});

/** A link target or source, after the official ContentRef: a page of the revision or a URL. */
interface RestContentRef {
  kind: string;
  page?: string;
  url?: string;
}

/** An item of `GET /spaces/{spaceId}/links` (the seed leaves its shape unshown). */
interface RestSpaceLink {
  status: string;
  url?: string;
  target: RestContentRef;
  source?: RestContentRef;
}

interface RestLinkStats {
  total: number;
  broken: { total: number; changeRequest: number };
}

const ContentRef = builder.objectRef<RestContentRef>('ContentRef').implement({
  description: 'A reference to content: a page of the revision (`kind` page) or a URL (`kind` url).',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'REST `kind`, e.g. `page` or `url`.' }),
    page: t.string({ nullable: true, description: 'Id of the page (kind page).', resolve: (r) => orNull(r.page) }),
    url: t.string({ nullable: true, description: 'The URL (kind url).', resolve: (r) => orNull(r.url) }),
  }),
});

const SpaceLink = builder.objectRef<RestSpaceLink>('SpaceLink').implement({
  description: 'A link found in the content of the space, with its status.',
  fields: (t) => ({
    status: t.field({ type: LinkStatus, resolve: (l) => l.status as never }),
    url: t.string({ nullable: true, description: 'The link as written in the content.', resolve: (l) => orNull(l.url) }),
    target: t.field({ type: ContentRef, resolve: (l) => l.target }),
    source: t.field({ type: ContentRef, nullable: true, description: 'Where the link appears.', resolve: (l) => orNull(l.source) }),
  }),
});

const SpaceLinkBrokenStats = builder.objectRef<RestLinkStats['broken']>('SpaceLinkBrokenStats').implement({
  description: 'Counts of broken links (REST `stats.broken`).',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Broken links in the current revision.' }),
    changeRequest: t.exposeInt('changeRequest', { description: 'Broken links in open change requests.' }),
  }),
});

const SpaceLinkStats = builder.objectRef<RestLinkStats>('SpaceLinkStats').implement({
  description: 'Counts over every link of a space (REST `stats`).',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'All links of the current revision, whatever the status filter.' }),
    broken: t.field({ type: SpaceLinkBrokenStats, resolve: (s) => s.broken }),
  }),
});

const SpaceLinkConnection = builder.connectionObject(
  {
    type: SpaceLink,
    name: 'SpaceLinkConnection',
    fields: (t) => ({
      stats: t.field({
        type: SpaceLinkStats,
        description: 'Counts over every link of the space (REST `stats`).',
        resolve: (c) => (c as unknown as ConnectionResult<RestSpaceLink, RestSpaceLink>).envelope.stats as RestLinkStats,
      }),
    }),
  },
  { name: 'SpaceLinkEdge' },
);

builder.objectField(Space, 'links', (t) =>
  t.field({
    type: SpaceLinkConnection,
    nullable: true,
    description: 'Links in the current revision of the space, with their status (`GET /spaces/{spaceId}/links`).',
    args: { ...forwardArgs, status: t.arg({ type: LinkStatus, description: 'Only links with this status.' }) },
    resolve: (s, { status, ...args }, ctx, info) =>
      resolveList<RestSpaceLink>(ctx, args, { path: restPath`/spaces/${s.id}/links`, query: { status: status ?? undefined } }, info),
  }),
);
