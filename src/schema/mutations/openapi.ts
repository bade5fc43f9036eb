import { orgSettingsBodies } from '../../api/bodies/orgSettings.js';
import { limits } from '../../api/rules.js';
import { builder } from '../builder.js';
import { checkInput, globalId, restBody } from '../lib/mutation.js';
import { OpenApiSpec, openApiSpecs } from '../nodes/OpenApiSpec.js';
import { Organization } from '../nodes/Organization.js';

const OpenApiSpecSourceInput = builder.inputType('OpenApiSpecSourceInput', {
  description: 'Where a spec comes from: exactly one of `url` and `text` (BAD_USER_INPUT otherwise).',
  fields: (t) => ({
    url: t.string({ description: 'An absolute URL the spec is fetched from.' }),
    text: t.string({ description: 'The spec itself, JSON or YAML.' }),
  }),
});

const checkSlug = (specSlug: string) => checkInput({ specSlug: { ...limits.openApiSlug, required: true } }, { specSlug });

builder.relayMutationField(
  'createOpenApiSpec',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      slug: t.string({ required: true }),
      source: t.field({ type: OpenApiSpecSourceInput, required: true }),
    }),
  },
  {
    description: 'Creates an OpenAPI spec and queues its processing (`POST /orgs/{organizationId}/openapi`).',
    resolve: async (_root, { input }, ctx) => {
      const body = restBody(input, ['organizationId']);
      checkInput(orgSettingsBodies['openApiSpec.create'], body);
      return { openApiSpec: await openApiSpecs.save(ctx, 'POST', input.organizationId, body) };
    },
  },
  {
    outputFields: (t) => ({
      openApiSpec: t.field({ type: OpenApiSpec, nullable: true, resolve: (p) => p.openApiSpec }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.openApiSpec.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'updateOpenApiSpec',
  {
    inputFields: (t) => ({
      organizationId: t.string({ required: true }),
      specSlug: t.string({ required: true }),
      source: t.field({ type: OpenApiSpecSourceInput, required: true }),
    }),
  },
  {
    description:
      'Replaces the source of an OpenAPI spec, or creates it under this slug, and queues its processing ' +
      '(`PUT /orgs/{organizationId}/openapi/{specSlug}`).',
    resolve: async (_root, { input }, ctx) => {
      checkSlug(input.specSlug);
      const body = restBody(input, ['organizationId', 'specSlug']);
      checkInput(orgSettingsBodies['openApiSpec.put'], body);
      return { openApiSpec: await openApiSpecs.save(ctx, 'PUT', input.organizationId, body, input.specSlug) };
    },
  },
  {
    outputFields: (t) => ({
      openApiSpec: t.field({ type: OpenApiSpec, nullable: true, resolve: (p) => p.openApiSpec }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.openApiSpec.organizationId }),
    }),
  },
);

builder.relayMutationField(
  'deleteOpenApiSpec',
  { inputFields: (t) => ({ organizationId: t.string({ required: true }), specSlug: t.string({ required: true }) }) },
  {
    description: 'Deletes an OpenAPI spec (`DELETE /orgs/{organizationId}/openapi/{specSlug}`).',
    resolve: async (_root, { input }, ctx) => {
      checkSlug(input.specSlug);
      await openApiSpecs.remove(ctx, input.organizationId, input.specSlug);
      return { deletedId: globalId('OpenApiSpec', input.organizationId, input.specSlug), organizationId: input.organizationId };
    },
  },
  {
    outputFields: (t) => ({
      deletedId: t.id({ resolve: (p) => p.deletedId }),
      organization: t.field({ type: Organization, nullable: true, resolve: (p) => p.organizationId }),
    }),
  },
);
