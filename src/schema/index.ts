/** Imports every type file (each registers its types with the builder) and builds the schema. */
import { builder } from './builder.js';
import { deriveResources } from './lib/resource.js';
import { describeGeneratedTypes } from './lib/descriptions.js';
import { toSubgraphSchema } from './lib/federation.js';
import './lib/scalars.js';
import './nodes/User.js';
import './nodes/Organization.js';
import './nodes/Space.js';
import './nodes/Collection.js';
import './mutations/content.js';
import './nodes/Permission.js';
import './nodes/OpenApiSpec.js';
import './nodes/TranslationSettings.js';
import './nodes/CustomFont.js';
import './nodes/Integration.js';
import './nodes/AskAnswer.js';
import './subscriptions/ask.js';
import './nodes/Team.js';
import './nodes/Member.js';
import './nodes/Invite.js';
import './nodes/SamlProvider.js';
import './mutations/organization.js';
import './nodes/Site.js';
import './nodes/SiteSpace.js';
import './nodes/SiteSection.js';
import './nodes/SiteSectionGroup.js';
import './nodes/SiteRedirect.js';
import './nodes/ShareLink.js';
import './mutations/siteInputs.js';
import './nodes/ChangeRequest.js';
import './nodes/Comment.js';
import './nodes/CommentReply.js';

deriveResources();

builder.queryType({ description: 'Reads: root lookups by REST identifiers, the caller, and any node by its global id.' });
builder.mutationType({ description: 'Writes: one mutation per REST write and per state transition.' });
builder.subscriptionType({ description: 'Streams of the REST API, as Server-Sent Events.' });

// A federation subgraph: every node type is an entity; sorted lexicographically, `sdl()` is its print.
export const { schema, sdl } = toSubgraphSchema(describeGeneratedTypes(builder.toSchema()));
