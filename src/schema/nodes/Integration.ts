import type {
  IntegrationBlock as RestBlock,
  IntegrationContentSource as RestContentSource,
  IntegrationInstallation as RestInstallation,
  Integration as RestIntegrationOfficial,
} from '@gitbook/api';
import { builder } from '../builder.js';
import { forwardArgs, resolveList } from '../lib/connection.js';
import {
  IntegrationCategory,
  IntegrationInstallationSelection,
  IntegrationInstallationStatus,
  IntegrationTarget,
  IntegrationVisibility,
} from '../lib/enums.js';
import { orNull, urlsType } from '../lib/fields.js';
import { restPath } from '../lib/node.js';
import { edge, resourceNode, type BuilderTypes } from '../lib/resource.js';
import { Organization } from './Organization.js';

/** The seed's integration (its permissions also carry `install`); secrets are never part of it. */
export type RestIntegration = RestIntegrationOfficial & { permissions: { install?: boolean } };

/** Integrations, keyed by name (`/integrations/{integrationName}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    Integration: RestIntegration;
  }
}

export const Integration = resourceNode('Integration');

const IntegrationPermissions = builder.objectRef<RestIntegration['permissions']>('IntegrationPermissions').implement({
  description: 'What the caller may do with the integration (REST `permissions`).',
  fields: (t) => ({
    admin: t.exposeBoolean('admin', { description: 'The caller administers the organization that owns the integration.' }),
    install: t.boolean({ nullable: true, description: 'The caller may install the integration.', resolve: (p) => orNull(p.install) }),
  }),
});

const IntegrationBlockMarkdown = builder.objectRef<NonNullable<RestBlock['markdown']>>('IntegrationBlockMarkdown').implement({
  description: 'How a block is written in markdown: its code block name and body.',
  fields: (t) => ({ codeblock: t.exposeString('codeblock'), body: t.exposeString('body') }),
});

/** The fields a block and a content source share. `id` is a global id everywhere in the graph
 * (clients cache objects by it): REST `id` is `restId`. */
const componentFields = <C extends { id: string; title: string; description?: string; icon?: string }>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, C>,
  what: string,
) => ({
  restId: t.string({ description: `The REST id of the ${what} within its integration.`, resolve: (c) => c.id }),
  title: t.string({ resolve: (c) => c.title }),
  description: t.string({ nullable: true, resolve: (c) => orNull(c.description) }),
  icon: t.string({ nullable: true, resolve: (c) => orNull(c.icon) }),
});

const IntegrationBlock = builder.objectRef<RestBlock>('IntegrationBlock').implement({
  description: 'A custom block defined by an integration.',
  fields: (t) => ({
    ...componentFields(t, 'block'),
    urlUnfurl: t.stringList({ resolve: (b) => b.urlUnfurl ?? [] }),
    markdown: t.field({ type: IntegrationBlockMarkdown, nullable: true, resolve: (b) => orNull(b.markdown) }),
  }),
});

const IntegrationContentSourceConfiguration = builder
  .objectRef<RestContentSource['configuration']>('IntegrationContentSourceConfiguration')
  .implement({
    description: 'The configuration of a content source: the component that configures it.',
    fields: (t) => ({ componentId: t.exposeString('componentId') }),
  });

const IntegrationContentSource = builder.objectRef<RestContentSource>('IntegrationContentSource').implement({
  description: 'A content source defined by an integration.',
  fields: (t) => ({
    ...componentFields(t, 'content source'),
    configuration: t.field({ type: IntegrationContentSourceConfiguration, resolve: (s) => s.configuration }),
  }),
});

const IntegrationExternalLink = builder.objectRef<{ url: string; label: string }>('IntegrationExternalLink').implement({
  description: 'A link to a page about the integration.',
  fields: (t) => ({ url: t.exposeString('url'), label: t.exposeString('label') }),
});

const ENDPOINTS = ['publicEndpoint', 'publicContentEndpoint'];
const IntegrationInstallationUrls = urlsType('IntegrationInstallationUrls', 'an integration installation', [
  'location',
  'app',
  ...ENDPOINTS,
]);
const IntegrationUrls = urlsType('IntegrationUrls', 'an integration', ['location', 'app', 'assets', ...ENDPOINTS], ['icon']);

const IntegrationInstallation = builder.objectRef<RestInstallation>('IntegrationInstallation').implement({
  description: 'An installation of an integration in an organization.',
  fields: (t) => ({
    restId: t.exposeString('id', { description: 'The REST id of the installation.' }),
    status: t.field({ type: IntegrationInstallationStatus, resolve: (i) => i.status as never }),
    spaceSelection: t.field({ type: IntegrationInstallationSelection, resolve: (i) => i.space_selection as never }),
    siteSelection: t.field({ type: IntegrationInstallationSelection, resolve: (i) => i.site_selection as never }),
    spacesCount: t.int({ description: 'Count of spaces the installation manages (REST `spaces`).', resolve: (i) => i.spaces }),
    configuration: t.field({ type: 'JSON', resolve: (i) => i.configuration }),
    externalIds: t.stringList({ resolve: (i) => i.externalIds }),
    createdAt: t.field({ type: 'DateTime', resolve: (i) => i.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (i) => i.updatedAt }),
    urls: t.field({ type: IntegrationInstallationUrls, resolve: (i) => i.urls }),
    target: t.field({ type: 'JSON', resolve: (i) => i.target }),
    organization: edge(t, 'Organization', (i) => [i.target.organization], {
      description: 'The organization the integration is installed in.',
    }),
  }),
});

const IntegrationInstallationConnection = builder.connectionObject(
  { type: IntegrationInstallation, name: 'IntegrationInstallationConnection' },
  { name: 'IntegrationInstallationEdge' },
);

/** An open-ended part of the integration (JSON), null when absent. */
const json = <P extends RestIntegration>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, P>,
  description: string,
  read: (i: P) => unknown,
) => t.field({ type: 'JSON', nullable: true, description, resolve: (i) => orNull(read(i)) });

Integration.implement({
  description: 'An integration published on the platform, owned by an organization.',
  fields: (t) => ({
    name: t.exposeString('name'),
    version: t.exposeInt('version'),
    title: t.exposeString('title'),
    description: t.string({ nullable: true, resolve: (i) => orNull(i.description) }),
    summary: t.string({ nullable: true, description: 'Long-form markdown.', resolve: (i) => orNull(i.summary) }),
    previewImages: t.stringList({ resolve: (i) => i.previewImages }),
    target: t.field({ type: IntegrationTarget, resolve: (i) => i.target as never }),
    verified: t.exposeBoolean('verified'),
    visibility: t.field({ type: IntegrationVisibility, resolve: (i) => i.visibility as never }),
    scopes: t.stringList({ resolve: (i) => i.scopes as string[] }),
    categories: t.field({ type: [IntegrationCategory], resolve: (i) => i.categories as never }),
    blocks: t.field({ type: [IntegrationBlock], resolve: (i) => i.blocks ?? [] }),
    contentSources: t.field({ type: [IntegrationContentSource], resolve: (i) => i.contentSources ?? [] }),
    configurations: json(t, 'Configuration schemas by level (`account`, `space`, `site`).', (i) => i.configurations),
    externalLinks: t.field({ type: [IntegrationExternalLink], resolve: (i) => i.externalLinks }),
    contentSecurityPolicy: json(t, 'A policy string or an object of directives.', (i) => i.contentSecurityPolicy),
    urls: t.field({ type: IntegrationUrls, resolve: (i) => i.urls as never }),
    permissions: t.field({ type: IntegrationPermissions, resolve: (i) => i.permissions }),
    owner: t.field({
      type: Organization,
      nullable: true,
      description: 'The organization that published the integration (carried by the integration, no extra call).',
      resolve: (i) => i.owner,
    }),
    installations: t.field({
      type: IntegrationInstallationConnection,
      nullable: true,
      description: 'Installations the caller may see (`GET /integrations/{integrationName}/installations`).',
      args: { ...forwardArgs, externalId: t.arg.string({ description: 'Only installations with this external id.' }) },
      resolve: (i, { externalId, ...args }, ctx, info) =>
        resolveList<RestInstallation>(ctx, args, { path: restPath`/integrations/${i.name}/installations`, query: { externalId } }, info),
    }),
  }),
});
