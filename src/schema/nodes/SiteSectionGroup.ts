import type { SiteSectionGroup as RestSiteSectionGroup } from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import { orNull } from '../lib/fields.js';
import { siteScoped } from '../lib/siteScoped.js';
import { Site } from './Site.js';
import { SiteSection, siteLocalId, siteSections } from './SiteSection.js';

export const siteSectionGroups = siteScoped<RestSiteSectionGroup>('SiteSectionGroup', 'section-groups', 'Site section group');
export const SiteSectionGroup = siteSectionGroups.ref;

SiteSectionGroup.implement({
  description: 'A named group of sections of a site; a section is in at most one group.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the section group.' }),
    title: t.exposeString('title'),
    icon: t.string({ nullable: true, resolve: (g) => orNull(g.icon) }),
    sections: t.field({
      type: [SiteSection],
      description: 'The sections of the group, in site order (embedded by REST: no call).',
      resolve: (g) => g.sections.map((s) => siteSections.attach(s, g)),
    }),
    site: t.field({ type: Site, nullable: true, resolve: (g) => siteLocalId(g) }),
  }),
});

builder.objectField(SiteSection, 'sectionGroup', (t) =>
  t.field({
    type: SiteSectionGroup,
    nullable: true,
    description: 'The group holding the section (REST `sectionGroup`), if any.',
    resolve: (s, _args, ctx) => (s.sectionGroup ? siteSectionGroups.find(ctx, s, s.sectionGroup) : null),
  }),
);

const SiteSectionGroupConnection = builder.connectionObject(
  { type: SiteSectionGroup, name: 'SiteSectionGroupConnection' },
  { name: 'SiteSectionGroupEdge' },
);

builder.objectField(Site, 'sectionGroups', (t) =>
  t.field({
    type: SiteSectionGroupConnection,
    nullable: true,
    description: 'Section groups of the site, in site order (`GET …/section-groups`).',
    args: forwardArgs,
    resolve: (site, args, ctx) => resolveList(ctx, args, siteSectionGroups.list(site)),
  }),
);
