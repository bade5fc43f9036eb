import type { Organization as RestOrganization } from '@gitbook/api';
import { Role } from '../lib/enums.js';
import { permissionsType, urlsType } from '../lib/fields.js';
import { resourceNode } from '../lib/resource.js';

declare module '../lib/resource.js' {
  interface ResourceShapes {
    Organization: RestOrganization;
  }
}

export const Organization = resourceNode('Organization');

export const OrganizationPermissions = permissionsType('OrganizationPermissions', 'in the organization', ['admin', 'createContent']);

const OrganizationUrls = urlsType('OrganizationUrls', 'an organization', ['location', 'app'], ['logo']);

Organization.implement({
  description: 'An organization: owner of spaces, collections, sites, members and teams.',
  fields: (t) => ({
    title: t.exposeString('title'),
    createdAt: t.field({ type: 'DateTime', resolve: (o) => o.createdAt }),
    hostname: t.string({ nullable: true, resolve: (o) => o.hostname ?? null }),
    emailDomains: t.stringList({ resolve: (o) => o.emailDomains ?? [] }),
    type: t.string({ description: 'REST `type`, e.g. `business`.', resolve: (o) => o.type }),
    useCase: t.string({ nullable: true, resolve: (o) => o.useCase ?? null }),
    defaultRole: t.field({ type: Role, nullable: true, resolve: (o) => o.defaultRole ?? null }),
    sso: t.boolean({ nullable: true, resolve: (o) => o.sso ?? null }),
    ai: t.boolean({ nullable: true, resolve: (o) => o.ai ?? null }),
    inviteLinks: t.exposeBoolean('inviteLinks'),
    plan: t.string({ description: 'REST `plan`, e.g. `free_2024`.', resolve: (o) => o.plan }),
    urls: t.field({ type: OrganizationUrls, resolve: (o) => o.urls as never }),
    permissions: t.field({ type: OrganizationPermissions, resolve: (o) => o.permissions }),
  }),
});
