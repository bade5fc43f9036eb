import type { SiteSectionGroup as RestSiteSectionGroup } from '@gitbook/api';
import { orNull } from '../lib/fields.js';
import { edge, payloadFields, resourceInfo, resourceNode } from '../lib/resource.js';
import type { SiteKeys } from './Site.js';
import { SiteSection } from './SiteSection.js';
import { EMBEDDED } from '../lib/cost.js';

type GroupShape = RestSiteSectionGroup & SiteKeys;

declare module '../lib/resource.js' {
  interface ResourceShapes {
    SiteSectionGroup: GroupShape;
  }
}

export const SiteSectionGroup = resourceNode('SiteSectionGroup');

SiteSectionGroup.implement({
  description: 'A named group of sections of a site; a section is in at most one group.',
  fields: (t) => ({
    title: t.exposeString('title'),
    icon: t.string({ nullable: true, resolve: (g) => orNull(g.icon) }),
    sections: t.field({
      type: [SiteSection],
      description: 'The sections of the group, in site order (embedded by REST: no call).',
      extensions: EMBEDDED,
      resolve: (g) => g.sections.map((s) => resourceInfo('SiteSection').attach(s, g)),
    }),
    site: edge(t, 'Site', (g) => [g.organizationId, g.siteId]),
  }),
});

payloadFields('removeSiteSectionFromGroup', (t) => ({
  siteSection: edge(t, 'SiteSection', ({ values: k }) => [k.organizationId, k.siteId, k.siteSectionId], {
    description: 'The section after the change (read through the site’s section list).',
  }),
}));

payloadFields('addSiteSectionToGroup', (t) => ({
  siteSection: t.field({
    type: SiteSection,
    nullable: true,
    description: 'The section, as the group now embeds it.',
    resolve: (p) => {
      const section = p.node?.sections.find((s) => s.id === p.values.sectionId);
      return section && p.node && resourceInfo('SiteSection').attach(section, p.node);
    },
  }),
}));
