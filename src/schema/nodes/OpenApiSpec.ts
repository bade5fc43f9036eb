import type { OpenAPISpec as RestOpenApiSpec } from '@gitbook/api';
import { builder } from '../builder.js';
import { OpenApiProcessErrorCode, OpenApiProcessingState } from '../lib/enums.js';
import { orNull, permissionsType, urlsType } from '../lib/fields.js';
import { edge, resourceNode } from '../lib/resource.js';

type RestSpec = RestOpenApiSpec & { organizationId: string };

/** OpenAPI specs of an organization, keyed by slug (`/orgs/{organizationId}/openapi/{specSlug}`). */
declare module '../lib/resource.js' {
  interface ResourceShapes {
    OpenApiSpec: RestSpec;
  }
}

export const OpenApiSpec = resourceNode('OpenApiSpec');

const OpenApiSpecPermissions = permissionsType('OpenApiSpecPermissions', 'with the spec', ['view', 'edit']);

const OpenApiProcessError = builder.objectRef<{ code: string; message: string }>('OpenApiProcessError').implement({
  description: 'An error found by the last processing of a spec.',
  fields: (t) => ({ code: t.exposeString('code'), message: t.exposeString('message') }),
});

const OpenApiSpecUrls = urlsType('OpenApiSpecUrls', 'an OpenAPI spec', ['location', 'app'], ['published']);

OpenApiSpec.implement({
  description: 'An OpenAPI specification stored in an organization, processed from a URL or a text.',
  fields: (t) => ({
    slug: t.exposeString('slug'),
    createdAt: t.field({ type: 'DateTime', resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (s) => s.updatedAt }),
    sourceURL: t.string({ nullable: true, resolve: (s) => orNull(s.sourceURL) }),
    processingState: t.field({ type: OpenApiProcessingState, resolve: (s) => s.processingState as never }),
    lastVersion: t.string({ nullable: true, description: 'Id of the latest version.', resolve: (s) => orNull(s.lastVersion) }),
    lastProcessedAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => orNull(s.lastProcessedAt) }),
    lastProcessErrorCode: t.field({
      type: OpenApiProcessErrorCode,
      nullable: true,
      resolve: (s) => orNull(s.lastProcessErrorCode) as never,
    }),
    lastProcessedErrors: t.field({
      type: [OpenApiProcessError],
      nullable: true,
      resolve: (s) => (s.lastProcessedErrors ?? null) as Array<{ code: string; message: string }> | null,
    }),
    lastProcessedErrorCount: t.int({ nullable: true, resolve: (s) => orNull(s.lastProcessedErrorCount) }),
    permissions: t.field({ type: OpenApiSpecPermissions, resolve: (s) => s.permissions }),
    urls: t.field({ type: OpenApiSpecUrls, resolve: (s) => s.urls as never }),
    organization: edge(t, 'Organization', (s) => [s.organizationId]),
  }),
});
