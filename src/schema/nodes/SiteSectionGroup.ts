import type { SiteSectionGroup as RestSiteSectionGroup } from '@gitbook/api';
import { builder } from '../builder.js';
import { orNull } from '../lib/fields.js';
import { edge, fillPath, payloadFields, resourceInfo, resourceNode, staleAfter } from '../lib/resource.js';
import type { SiteKeys } from './Site.js';
import { SiteSection, type SiteSectionShape } from './SiteSection.js';

type GroupShape = RestSiteSectionGroup & SiteKeys;

export const SiteSectionGroup = resourceNode<GroupShape>('SiteSectionGroup');

SiteSectionGroup.implement({
  description: 'A named group of sections of a site; a section is in at most one group.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the section group.' }),
    title: t.exposeString('title'),
    icon: t.string({ nullable: true, resolve: (g) => orNull(g.icon) }),
    sections: t.field({
      type: [SiteSection],
      description: 'The sections of the group, in site order (embedded by REST: no call).',
      resolve: (g) => g.sections.map((s) => resourceInfo('SiteSection').attach(s, g) as SiteSectionShape),
    }),
    site: edge(t, 'Site', (g: SiteKeys) => [g.organizationId, g.siteId]),
  }),
});

type Keys = SiteKeys & { siteSectionGroupId: string; siteSectionId: string };

payloadFields('addSiteSectionToGroup', (t) => ({
  siteSection: t.field({
    type: SiteSection,
    nullable: true,
    description: 'The section, as the group now embeds it.',
    resolve: (p: { values: { sectionId: string }; node: GroupShape }) => {
      const section = p.node.sections.find((s) => s.id === p.values.sectionId);
      return section && resourceInfo('SiteSection').attach(section, p.node);
    },
  }),
}));

/** REST answers nothing: the payload reads the group and the section again, through their lists. */
const REMOVE = '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}';

builder.relayMutationField(
  'removeSiteSectionFromGroup',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      siteId: t.string({ required: true }),
      siteSectionGroupId: t.string({ required: true }),
      siteSectionId: t.string({ required: true }),
    }),
  },
  {
    description: `Takes a section out of its group (\`DELETE ${REMOVE}\`).`,
    resolve: async (_root, { input }, ctx) => {
      await ctx.rest.write('DELETE', fillPath(REMOVE, input)!, undefined, { invalidate: staleAfter(resourceInfo('SiteSectionGroup'), input) });
      return input;
    },
  },
  {
    outputFields: (t) => ({
      siteSectionGroup: edge(t, 'SiteSectionGroup', (k: Keys) => [k.organizationId, k.siteId, k.siteSectionGroupId], {
        description: 'The group after the change (read through the site’s group list).',
      }),
      siteSection: edge(t, 'SiteSection', (k: Keys) => [k.organizationId, k.siteId, k.siteSectionId], { description: 'The section after the change (read through the site’s section list).' }),
    }),
  },
);
