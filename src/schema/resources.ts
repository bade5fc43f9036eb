/**
 * The resource table: one declaration per REST resource. From it src/schema/lib/resource.ts
 * derives each resource's Node type (global id over its path parameters, `restId`, refetch), its
 * connection and the parent's connection field with the REST list filters as arguments, its root
 * lookup, its create/update/delete mutations (inputs from the src/api body rules, `deletedId`
 * payloads) and what each write makes stale in the request's REST loader. The node's own fields
 * and what is truly special (merge, publish, reactions, ask, streams) are written in its file
 * under src/schema/nodes.
 *
 * Path templates use the seed's path parameter names; those names are the global id's keys, the
 * lookup's arguments and the mutation inputs' key fields.
 */
import { integrationBodies } from '../api/bodies/integrations.js';
import { MEMBER_ROLE_FILTERS, organizationBodies } from '../api/bodies/organizations.js';
import { orgSettingsBodies, REQUIRED_FONT_WEIGHT } from '../api/bodies/orgSettings.js';
import { siteBodies } from '../api/bodies/sites.js';
import {
  bodies,
  CHANGE_REQUEST_STATUSES,
  COMMENT_STATUSES,
  INTEGRATION_CATEGORIES,
  INTEGRATION_TARGETS,
  limits,
  MEMBER_SORTS,
  ORDERS,
} from '../api/rules.js';
import type { Fields, Rule } from '../api/validate.js';
import type { WriteMethod } from './restLoader.js';

/** A REST list filter as a connection argument: its rule gives the GraphQL type. */
export type Filter = Rule & { description?: string };

/** A REST write of a resource, as the mutation named by its key in `writes`. */
export interface Write {
  /** `create`: a write to the list (its path by default); `delete`: the payload holds `deletedId`.
   * Any other write (an update, a state transition) returns the object. */
  kind?: 'create' | 'delete';
  method: WriteMethod;
  /** REST path template; default: the list path for `create`, the resource's path otherwise. */
  path?: string;
  /** A fixed REST body (a transition such as lockSpace); the input then holds only the keys. */
  body?: Record<string, unknown>;
  description: string;
  /** Body rules from src/api; each becomes an input field (its description generated from the rule). */
  rules?: Fields;
  /** What a body field means, beside what its rule says. */
  notes?: Record<string, string>;
  /** Body fields whose GraphQL type is not the rule's: an input object registered with `inputObject`,
   * one derived from the object rule, or a scalar name; a list of it for an array rule. */
  inputs?: Record<string, string | InputObjectSpec>;
  /** REST answers with an object of another (non-node) type: the payload holds it under `field`,
   * and the resource as read after the write. */
  returns?: { field: string; type: string };
  /** REST answers nothing: the payload's object is read again when selected. */
  empty?: boolean;
  /** REST answers nothing and the input lacks the parent's keys: the object is read first (a
   * delete whose payload names the organization whose list changed). */
  readFirst?: boolean;
  /** What this write makes stale besides what every write of the resource does (templates). */
  stale?: string[];
}

/**
 * An input object derived from a body field's object rule (or its array's item rule): a field per
 * rule field; a nested object field is the input object `<Name><Field>Input` its note describes.
 */
export interface InputObjectSpec {
  name: string;
  description: string;
  /** What a field means, beside what its rule says. */
  notes?: Record<string, string>;
}

/** The body of a comment or a reply (`body: ContentBodyInput!`). */
const postBody = { body: bodies['reply.create'].body };

export interface Resource {
  /** REST path of one object; its parameters are the keys of the global id, outermost first. */
  path: string;
  /** The JSON field holding the last key (default `id`). */
  idField?: string;
  /** REST has no GET of one object: `node(id:)` and the lookup find it in its list. */
  listedOnly?: boolean;
  /** REST has neither a GET nor a list of it: it is embedded in the `field` of the `resource` of
   * its other keys (with `listedOnly`), and refetched by finding that object. */
  within?: { resource: string; field: string };
  /** Rules of path parameters (a slug's pattern), checked before a write: BAD_USER_INPUT, no REST call. */
  keyRules?: Fields;
  /** Its node's `restId: String!`: the JSON field read (default `id`) and the description
   * (default `The REST id of the <name in words>.`). */
  restId?: { field?: string; description?: string };
  /** Also a federation entity keyed by `restId` (resources of one key). */
  restIdKey?: boolean;
  /** Path parameters its JSON carries under another field (a space's `organization`). */
  jsonKeys?: Record<string, string>;
  /** REST also takes its number (a value matching this) in its last path parameter: lookups and
   * the writes of what lies below it read it first, so global ids hold the REST id. */
  numbered?: RegExp;
  /** The REST list, as a connection field of the parent type. */
  list?: {
    on: string;
    field: string;
    /** REST path template of the list; default: `path` without its last segment. */
    path?: string;
    description: string;
    filters?: Record<string, Filter>;
    /** Read with a share key: the field's `shareKey` argument, by default the one the parent was
     * opened with (its items carry it). */
    shareable?: boolean;
    /** Its items carry content bodies: REST is asked for the format the selection needs. */
    bodies?: boolean;
  };
  /** The root lookup by REST ids (the path parameters); `bodies` as for lists; `shareable`: a
   * `shareKey` argument, the object read with it (`lists`: REST serves only its lists by key, so
   * the object is a reference whose lists carry the key). */
  lookup?: { field: string; description: string; bodies?: boolean; shareable?: boolean | 'lists' };
  /** Its mutations, by name: creates, updates, deletes and the state transitions that are one REST write. */
  writes?: Record<string, Write>;
  /** What every write of it makes stale besides its list and itself: path templates over the
   * write's parameters and the written JSON's fields (a prefix: everything below is forgotten). */
  stale?: string[];
}

/** Parameter names of a path template, in order: `/orgs/{organizationId}/teams/{teamId}` → both ids. */
export const pathParams = (template: string): string[] => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** The REST list path of a resource: `list.path`, else its path without the last segment. */
export const listPath = (r: Resource): string => r.list?.path ?? r.path.slice(0, r.path.lastIndexOf('/'));

/** The REST path of a write: its own, else the list path for a create and the resource's path otherwise. */
export const writePath = (r: Resource, w: Write): string => w.path ?? (w.kind === 'create' ? listPath(r) : r.path);

const string = (description: string): Filter => ({ kind: 'string', description });

const boolean = (description: string): Filter => ({ kind: 'boolean', description });

// Site objects embed counts and lists: a write under a site forgets every read of the organization's sites.
const SITES = ['/orgs/{organizationId}/sites'];
/**
 * The lists that embed a space (its title, its counts of change requests and comments): a write to
 * the space, or to what it counts, is read there too. A change request's or a comment's write does
 * not know the space's organization: any organization's lists are forgotten.
 */
const SPACE_LISTS = [
  '/orgs/{organizationId}/spaces',
  '/orgs/{organizationId}/collections',
  '/orgs/{organizationId}/sites',
  '/orgs/{organizationId}/members',
  '/collections',
];
/** Where the permissions of spaces and collections are read (their lists of users and teams, aggregated). */
const PERMISSIONS = ['/spaces', '/collections'];

/** What the optional fields of a section or group update mean beside their rules. */
const UPDATE_NOTES = {
  defaultSiteSpace: 'The REST id of a site space of the section.',
  condition: 'Absent keeps the condition; null removes it.',
  icon: 'Absent keeps the icon; null removes it.',
  description: 'Absent keeps the description; null removes it.',
};

const oneOf = (values: readonly string[], description?: string): Filter => ({ kind: 'enum', values, description });

/** A create (a write to the list), an update or other write that returns the object, a delete. */
const create = (method: WriteMethod, description: string, rules: Fields, more: Partial<Write> = {}): Write => ({
  kind: 'create',
  method,
  description,
  rules,
  ...more,
});
const update = (method: WriteMethod, description: string, rules?: Fields, more: Partial<Write> = {}): Write => ({
  method,
  description,
  rules,
  ...more,
});
const remove = (description: string): Write => ({ kind: 'delete', method: 'DELETE', description });

/** The source of an OpenAPI spec (create and replace). */
const specSource: InputObjectSpec = {
  name: 'OpenApiSpecSourceInput',
  description: 'Where a spec comes from: exactly one of `url` and `text` (BAD_USER_INPUT otherwise).',
  notes: { url: 'An absolute URL the spec is fetched from.', text: 'The spec itself, JSON or YAML.' },
};

const fontFaces = (name: string, description: string): InputObjectSpec => ({
  name,
  description,
  notes: { storageKey: 'Path of the uploaded file in storage.' },
});

/** Nested input objects of an integration's blocks and content sources (their type descriptions). */
const integrationComponentNotes = {
  markdown: 'How a block is written in markdown: its code block name and body.',
  configuration: 'The configuration of a content source: the component that configures it.',
};

/** What SAML provider body fields mean, beside their rules (create and update). */
const samlNotes = {
  entityID: "The identity provider's entity ID.",
  certificate: "The identity provider's certificate.",
  ssoURL: "The identity provider's sign-in URL.",
  defaultTeam: 'Id of a team new members join; null clears it.',
  defaultRole: 'Role of new members; null for guests.',
};

/**
 * The content-tree writes of a space or a collection (`moveSpace`, `transferCollection`, …): a
 * move takes a position, a transfer forgets every organization read (the source one is not
 * known), a delete reads the object first to name its organization in the payload.
 */
function treeWrites<K extends 'space' | 'collection'>(
  kind: K,
  deleted: string,
  stale: string[] = [],
): Record<`${'move' | 'transfer' | 'delete'}${Capitalize<K>}`, Write> {
  const Kind = (kind === 'space' ? 'Space' : 'Collection') as Capitalize<K>;
  const path = `/${kind}s/{${kind}Id}`;
  return {
    [`move${Kind}`]: update('POST', `Moves a ${kind} in the content tree of its organization`, bodies[`${kind}.move`], {
      path: `${path}/move`,
      inputs: { position: 'ContentPositionInput' },
      notes: {
        parent: 'The collection to move into; null: the organization root; absent: stays in its parent.',
        position: 'Before or after a sibling; default the end.',
      },
    }),
    [`transfer${Kind}`]: update('POST', `Transfers a ${kind} to the root of another organization`, bodies[`${kind}.transfer`], {
      path: `${path}/transfer`,
      notes: { organization: 'Id of the target organization.' },
      stale: ['/orgs', ...stale],
    }),
    [`delete${Kind}`]: { ...remove(`Deletes a ${kind}${deleted}`), readFirst: true, stale },
  } as Record<`${'move' | 'transfer' | 'delete'}${Capitalize<K>}`, Write>;
}

export const RESOURCES = {
  Organization: {
    path: '/orgs/{organizationId}',
    restIdKey: true,
    list: { on: 'Query', field: 'organizations', path: '/orgs', description: 'The organizations the caller belongs to' },
    lookup: { field: 'organization', description: 'An organization by REST id' },
    // A user who joins (an invite of an existing user, `joinOrganization`) gets their role in its
    // spaces and collections.
    stale: PERMISSIONS,
  },

  // The organization: its members, teams, invites, SAML providers and settings.
  Team: {
    path: '/orgs/{organizationId}/teams/{teamId}',
    list: {
      on: 'Organization',
      field: 'teams',
      description: 'Teams of the organization',
      filters: {
        owner: string('A member id: only the teams that member can manage.'),
        title: string('Case-insensitive substring of the team title.'),
      },
    },
    lookup: { field: 'team', description: 'A team by REST id' },
    writes: {
      createTeam: create('PUT', 'Creates a team', organizationBodies['team.create'], {
        notes: { members: 'User ids of members to add; the caller joins as owner.' },
      }),
      updateTeam: update('PATCH', 'Renames a team', organizationBodies['team.update']),
      deleteTeam: remove('Deletes a team and its permissions'),
    },
    // Counts and permissions shown elsewhere in the organization change (`Member.teamsCount`, …),
    // and so do its spaces' and collections' aggregate permissions.
    stale: ['/orgs/{organizationId}', ...PERMISSIONS],
  },
  Invite: {
    path: '/orgs/{organizationId}/link-invites/{inviteId}',
    list: { on: 'Organization', field: 'linkInvites', description: 'Link invites of the organization' },
    lookup: { field: 'linkInvite', description: 'A link invite by REST id' },
    writes: {
      createLinkInvite: create('POST', 'Creates a link invite', organizationBodies['linkInvite.create'], {
        notes: { role: "Role given to who joins (default: the organization's); null for guests." },
      }),
      updateLinkInvite: update('PATCH', 'Changes the role of a link invite', organizationBodies['linkInvite.update'], {
        notes: { role: 'Null for guests.' },
      }),
      deleteLinkInvite: remove('Deletes a link invite'),
    },
    stale: ['/orgs/{organizationId}'],
  },

  Member: {
    path: '/orgs/{organizationId}/members/{userId}',
    restId: { description: 'The REST id of the member (the id of its user).' },
    list: {
      on: 'Organization',
      field: 'members',
      description: 'Members of the organization',
      filters: {
        role: oneOf(MEMBER_ROLE_FILTERS, 'Only members with this role (GUEST: without a role).'),
        search: string('Matches the display name and the email.'),
        sort: oneOf(MEMBER_SORTS, 'JOINED_AT (default) or LAST_SEEN_AT (active members only).'),
        order: oneOf(ORDERS, 'DESC by default.'),
      },
    },
    lookup: { field: 'member', description: 'A member by user id' },
    writes: {
      updateMember: update('PATCH', "Changes a member's role; the last admin cannot be demoted", organizationBodies['member.update'], {
        notes: { role: 'The new role; null makes the member a guest.' },
      }),
      removeMember: remove('Removes a member, or lets the caller leave'),
      setMemberSso: update('POST', 'Makes a member sign in with SSO', undefined, { path: '/orgs/{organizationId}/members/{userId}/sso' }),
    },
    // A role is also what the member holds in the spaces and collections it reaches.
    stale: ['/orgs/{organizationId}', ...PERMISSIONS],
  },
  SamlProvider: {
    path: '/orgs/{organizationId}/saml/{samlProviderId}',
    restId: { description: 'The REST id of the provider.' },
    list: { on: 'Organization', field: 'samlProviders', description: 'SAML providers of the organization, for admins' },
    lookup: { field: 'samlProvider', description: 'A SAML provider by REST id' },
    writes: {
      createSamlProvider: create('POST', 'Adds a SAML provider', organizationBodies['samlProvider.create'], { notes: samlNotes }),
      updateSamlProvider: update('PATCH', 'Changes a SAML provider', organizationBodies['samlProvider.update'], { notes: samlNotes }),
      deleteSamlProvider: remove('Removes a SAML provider'),
    },
    stale: ['/orgs/{organizationId}'],
  },
  OpenApiSpec: {
    path: '/orgs/{organizationId}/openapi/{specSlug}',
    idField: 'slug',
    restId: { description: 'The REST id of the spec.' },
    keyRules: { specSlug: limits.openApiSlug },
    list: { on: 'Organization', field: 'openApiSpecs', description: 'OpenAPI specs of the organization' },
    lookup: { field: 'openApiSpec', description: 'An OpenAPI spec by slug' },
    writes: {
      createOpenApiSpec: create('POST', 'Creates an OpenAPI spec and queues its processing', orgSettingsBodies['openApiSpec.create'], {
        inputs: { source: specSource },
      }),
      updateOpenApiSpec: update(
        'PUT',
        'Replaces the source of an OpenAPI spec, or creates it under this slug, and queues its processing',
        orgSettingsBodies['openApiSpec.put'],
        { inputs: { source: specSource } },
      ),
      deleteOpenApiSpec: remove('Deletes an OpenAPI spec'),
    },
  },
  TranslationSettings: {
    path: '/orgs/{organizationId}/translations/{translationSettingsId}',
    list: { on: 'Organization', field: 'translations', description: 'Translation settings of the organization' },
    lookup: { field: 'translationSettings', description: 'Translation settings by REST id' },
    writes: {
      createTranslationSettings: create('POST', 'Creates translation settings', orgSettingsBodies['translationSettings.create'], {
        notes: { languages: 'Default: English only.' },
      }),
      updateTranslationSettings: update('PUT', 'Updates translation settings', orgSettingsBodies['translationSettings.update'], {
        notes: { languages: 'Unchanged when absent.' },
      }),
      deleteTranslationSettings: remove('Deletes translation settings'),
    },
  },
  CustomFont: {
    path: '/orgs/{organizationId}/fonts/{fontId}',
    restId: { description: 'The REST id of the font.' },
    list: { on: 'Organization', field: 'fonts', description: 'Custom fonts of the organization' },
    lookup: { field: 'customFont', description: 'A custom font by REST id' },
    writes: {
      createCustomFont: create('PUT', 'Creates a custom font', orgSettingsBodies['font.create'], {
        notes: { fontFaces: `At least one face; weight ${REQUIRED_FONT_WEIGHT} is required.` },
        inputs: { fontFaces: fontFaces('CustomFontFaceInput', 'One weight of a new font and the storage key of its file.') },
      }),
      updateCustomFont: update('POST', 'Updates a custom font', orgSettingsBodies['font.update'], {
        notes: { fontFaces: `Changes by weight; weight ${REQUIRED_FONT_WEIGHT} must stay.` },
        inputs: {
          fontFaces: fontFaces('CustomFontFaceChangeInput', 'Sets the file of a weight, or removes the weight with `storageKey: null`.'),
        },
      }),
      deleteCustomFont: remove('Deletes a custom font'),
    },
  },

  // Users and integrations: platform-wide, outside any one organization.
  User: { path: '/users/{userId}', restIdKey: true, lookup: { field: 'user', description: 'A user by REST id' } },
  Integration: {
    path: '/integrations/{integrationName}',
    idField: 'name',
    restId: { field: 'name', description: 'The REST id of the integration: its name.' },
    restIdKey: true,
    keyRules: { integrationName: limits.integrationName },
    list: {
      on: 'Query',
      field: 'integrations',
      description: 'Public integrations and those of the caller’s organizations',
      filters: {
        search: string('Matches the name or title.'),
        category: oneOf(INTEGRATION_CATEGORIES),
        blockDomain: string('Integrations whose blocks unfurl URLs of this domain.'),
        blocks: boolean('With (true) or without (false) blocks.'),
        contentSources: boolean('With (true) or without (false) content sources.'),
        owner: string('Id of the owner organization.'),
        scope: string('Integrations that ask for this scope.'),
        target: oneOf(INTEGRATION_TARGETS, 'Integrations installable on this target.'),
      },
    },
    lookup: { field: 'integration', description: 'An integration by name' },
    writes: {
      publishIntegration: update('POST', 'Publishes an integration, or a new version of it', integrationBodies['integration.publish'], {
        notes: {
          organization: 'Id or hostname of the publishing organization.',
          summary: 'Long-form markdown.',
          icon: 'Base64 image.',
          previewImages: 'Base64 images.',
          configurations: 'Configuration schemas by level (`account`, `space`, `site`).',
          script: 'The integration script.',
          secrets: 'A map of strings stored with the integration and passed at runtime; never returned.',
          contentSecurityPolicy: 'A policy string or an object of directive strings.',
        },
        inputs: {
          scopes: 'String',
          blocks: {
            name: 'IntegrationBlockInput',
            description: 'A custom block the integration defines (REST `blocks` item).',
            notes: integrationComponentNotes,
          },
          contentSources: {
            name: 'IntegrationContentSourceInput',
            description: 'A content source the integration defines (REST `contentSources` item).',
            notes: integrationComponentNotes,
          },
          externalLinks: { name: 'IntegrationExternalLinkInput', description: 'A link to a page about the integration.' },
        },
      }),
      unpublishIntegration: remove('Unpublishes an integration'),
    },
  },

  // Sites and what lives under one site.
  Site: {
    path: '/orgs/{organizationId}/sites/{siteId}',
    list: {
      on: 'Organization',
      field: 'sites',
      description: 'Sites of the organization',
      filters: {
        published: boolean('Only published (true) or unpublished (false) sites.'),
        title: string('Only sites whose title contains this text.'),
        space: string('Only sites publishing the space with this REST id.'),
      },
    },
    lookup: {
      field: 'site',
      description: 'A site by REST ids; with `shareKey`, a reference whose `sections` and `redirectLookup` the key opens without a token',
      shareable: 'lists',
    },
    writes: {
      updateSite: update('PATCH', 'Changes the title or visibility of a site', siteBodies['site.update']),
      publishSite: update('POST', 'Publishes a site to the audience of its visibility', undefined, {
        path: '/orgs/{organizationId}/sites/{siteId}/publish',
      }),
      unpublishSite: update('POST', 'Takes a site offline', undefined, { path: '/orgs/{organizationId}/sites/{siteId}/unpublish' }),
      updateSitePublishingAuth: update(
        'PATCH',
        'Changes the visitor-authentication settings of a site',
        siteBodies['sitePublishingAuth.update'],
        {
          path: '/orgs/{organizationId}/sites/{siteId}/publishing/auth',
          notes: { fallbackURL: 'Null removes it.', logoutURL: 'Null removes it.' },
          returns: { field: 'publishingAuth', type: 'SitePublishingAuth' },
        },
      ),
    },
    stale: SITES,
  },
  SiteSection: {
    path: '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}',
    listedOnly: true,
    list: { on: 'Site', field: 'sections', description: 'Sections of the site, in site order', shareable: true },
    writes: {
      createSiteSection: create('POST', 'Adds a section at the end of a site', siteBodies['siteSection.create'], {
        notes: { spaceId: 'The space the section publishes (its first site space).', title: 'Default: the title of the space.' },
      }),
      updateSiteSection: update('PATCH', 'Changes a section', siteBodies['siteSection.update'], { notes: UPDATE_NOTES }),
      moveSiteSection: update(
        'POST',
        'Moves a section before or after another, or to the end of the site',
        siteBodies['siteSection.move'],
        {
          path: '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move',
          inputs: { position: 'SiteSectionPositionInput' },
        },
      ),
      deleteSiteSection: remove('Deletes a section and its site spaces'),
    },
    stale: SITES,
  },
  SiteSpace: {
    // REST embeds site spaces in their section (no GET, no list): the path only names the keys.
    path: '/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/site-spaces/{siteSpaceId}',
    listedOnly: true,
    within: { resource: 'SiteSection', field: 'siteSpaces' },
  },
  SiteSectionGroup: {
    path: '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}',
    restId: { description: 'The REST id of the section group.' },
    listedOnly: true,
    list: { on: 'Site', field: 'sectionGroups', description: 'Section groups of the site, in site order' },
    writes: {
      createSiteSectionGroup: create('POST', 'Creates a section group at the end of a site', siteBodies['siteSectionGroup.create'], {
        notes: { sections: 'REST ids of sections to put in the group (they leave any other group).' },
      }),
      updateSiteSectionGroup: update('PATCH', 'Changes a section group', siteBodies['siteSectionGroup.update'], { notes: UPDATE_NOTES }),
      moveSiteSectionGroup: update(
        'POST',
        'Moves a section group before or after a section, or to the end of the site',
        siteBodies['siteSectionGroup.move'],
        {
          path: '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move',
          inputs: { position: 'SiteSectionGroupPositionInput' },
        },
      ),
      addSiteSectionToGroup: update('POST', 'Puts a section into a group, out of any other', siteBodies['siteSectionGroup.addSection'], {
        path: '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections',
      }),
      removeSiteSectionFromGroup: update('DELETE', 'Takes a section out of its group', undefined, {
        path: '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}',
        empty: true,
      }),
      deleteSiteSectionGroup: remove('Deletes a section group; its sections stay, ungrouped'),
    },
    stale: SITES,
  },
  SiteRedirect: {
    path: '/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}',
    restId: { description: 'The REST id of the redirect.' },
    listedOnly: true,
    list: { on: 'Site', field: 'redirects', description: 'Redirects of the site, oldest first' },
    writes: {
      createSiteRedirect: create(
        'POST',
        'Creates a redirect on a site; a source already redirected: CONFLICT',
        siteBodies['siteRedirect.create'],
        {
          notes: { source: 'The path to redirect from, e.g. `/old/page`.' },
          inputs: { destination: 'SiteRedirectDestinationInput' },
        },
      ),
      updateSiteRedirect: update('PATCH', 'Changes the source or destination of a redirect', siteBodies['siteRedirect.update'], {
        inputs: { destination: 'SiteRedirectDestinationInput' },
      }),
      deleteSiteRedirect: remove('Deletes a redirect'),
    },
    stale: SITES,
  },
  ShareLink: {
    path: '/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}',
    listedOnly: true,
    list: {
      on: 'Site',
      field: 'shareLinks',
      description: 'Share links of the site, oldest first, for organization admins only: they reveal keys',
    },
    writes: {
      createShareLink: create('POST', 'Creates an active share link with a new secret key', siteBodies['shareLink.create']),
      updateShareLink: update(
        'PATCH',
        'Renames, activates or deactivates a share link; give `name`, `active` or both',
        siteBodies['shareLink.update'],
      ),
      activateShareLink: update('PATCH', 'Activates a share link: its key opens the site again', undefined, { body: { active: true } }),
      deactivateShareLink: update('PATCH', 'Deactivates a share link: its key opens nothing', undefined, { body: { active: false } }),
      deleteShareLink: remove('Deletes a share link; its key opens nothing'),
    },
    stale: SITES,
  },

  // Content: spaces, collections, change requests, comments and replies.
  Space: {
    path: '/spaces/{spaceId}',
    restIdKey: true,
    jsonKeys: { organizationId: 'organization' },
    list: {
      on: 'Organization',
      field: 'spaces',
      path: '/orgs/{organizationId}/spaces',
      description: 'Spaces of the organization the caller can read',
    },
    lookup: { field: 'space', description: 'A space by REST id', shareable: true },
    writes: {
      createSpace: create('POST', 'Creates a space', bodies['space.create'], {
        notes: { parent: 'Id of the collection to create the space in (default: the organization root).' },
      }),
      updateSpace: update('PATCH', 'Updates a space', bodies['space.update'], {
        notes: { title: 'Needs edit.', emoji: 'Needs edit.', editMode: 'Needs admin.', defaultLevel: 'Needs admin.' },
      }),
      restoreSpace: update('POST', 'Restores a space deleted in the last 7 days', undefined, { path: '/spaces/{spaceId}/restore' }),
      duplicateSpace: update('POST', 'Duplicates a space beside the original; the payload holds the copy', undefined, {
        path: '/spaces/{spaceId}/duplicate',
      }),
      lockSpace: update('PATCH', 'Locks a space: all edits are locked (`editMode: locked`); needs admin', undefined, {
        body: { editMode: 'locked' },
      }),
      unlockSpace: update('PATCH', 'Unlocks a locked space: users edit it directly (`editMode: live`); needs admin', undefined, {
        body: { editMode: 'live' },
      }),
      ...treeWrites('space', '; it can be restored for 7 days'),
    },
    // Collections embed what they hold, and a moved space's old parent is not known; so do the
    // organization's other lists (a site section's site spaces, a member's spaces, and the counts
    // of members and teams): a later root field's payload read them from before the write.
    stale: [...SPACE_LISTS, '/orgs/{organizationId}/teams'],
  },
  Collection: {
    path: '/collections/{collectionId}',
    restIdKey: true,
    jsonKeys: { organizationId: 'organization' },
    list: {
      on: 'Organization',
      field: 'collections',
      path: '/orgs/{organizationId}/collections',
      description: 'Collections of the organization',
      filters: { nested: boolean('Include nested collections (default true).') },
    },
    lookup: { field: 'collection', description: 'A collection by REST id' },
    writes: {
      createCollection: create('POST', 'Creates a collection', bodies['collection.create'], {
        notes: { parent: 'Id of the collection to nest it in (default: the organization root).' },
      }),
      updateCollection: update('PATCH', 'Updates a collection', bodies['collection.update']),
      // The spaces of a deleted collection move to the organization root; a transfer takes them along.
      ...treeWrites('collection', '; its spaces move to the organization root', ['/spaces']),
    },
    // Its spaces inherit its permissions (`grantCollectionPermission`: their aggregate permissions),
    // and its place, deletion and grants change the space counts of members and teams.
    stale: ['/orgs/{organizationId}/spaces', ...PERMISSIONS, '/orgs/{organizationId}/members', '/orgs/{organizationId}/teams'],
  },
  ChangeRequest: {
    path: '/spaces/{spaceId}/change-requests/{changeRequestId}',
    jsonKeys: { spaceId: 'space' },
    numbered: /^[1-9]\d{0,15}$/,
    list: {
      on: 'Space',
      field: 'changeRequests',
      description: 'Change requests of the space; `status` defaults to OPEN, as in REST',
      filters: {
        status: { kind: 'enum', values: CHANGE_REQUEST_STATUSES },
        contributor: string('Only change requests this user (REST id) contributed to.'),
      },
    },
    lookup: { field: 'changeRequest', description: 'A change request by its REST id or number' },
    writes: {
      createChangeRequest: create('POST', 'Creates a change request, as a draft', bodies['changeRequest.create']),
      updateChangeRequest: update('PATCH', 'Changes the subject and/or the status of a change request', bodies['changeRequest.update'], {
        notes: { status: 'DRAFT, OPEN or ARCHIVED (MERGED only by mergeChangeRequest).' },
        inputs: { status: 'ChangeRequestStatus' },
      }),
      archiveChangeRequest: update('PATCH', 'Archives a change request (`status: archived`)', undefined, { body: { status: 'archived' } }),
      reopenChangeRequest: update('PATCH', 'Opens a draft or archived change request (`status: open`)', undefined, {
        body: { status: 'open' },
      }),
      markChangeRequestDraft: update('PATCH', 'Turns a change request back into a draft (`status: draft`)', undefined, {
        body: { status: 'draft' },
      }),
    },
    // The space's counts and revision change.
    stale: ['/spaces/{spaceId}', ...SPACE_LISTS],
  },
  Comment: {
    path: '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}',
    restId: { description: 'The REST id.' },
    list: {
      on: 'ChangeRequest',
      field: 'comments',
      description: 'Comments of the change request; REST defaults: order DESC, status ALL',
      bodies: true,
      filters: {
        order: { kind: 'enum', values: ORDERS },
        status: { kind: 'enum', values: COMMENT_STATUSES },
        targetPage: string('Only comments on this page (page id).'),
      },
    },
    lookup: { field: 'comment', description: 'A comment by REST ids; `changeRequestId` may be the number', bodies: true },
    writes: {
      createComment: create('POST', 'Posts a comment in a change request', bodies['comment.create'], {
        notes: { page: 'The page (id) the comment is about.', node: 'The content node (id) the comment is about.' },
        inputs: { body: 'ContentBodyInput' },
      }),
      updateComment: update('PUT', 'Edits the body of a comment; its author only', postBody, { inputs: { body: 'ContentBodyInput' } }),
      resolveComment: update('PUT', 'Resolves a comment (`resolved: true`): sets `resolvedAt` and `resolvedBy`', undefined, {
        body: { resolved: true },
      }),
      reopenComment: update('PUT', 'Reopens a resolved comment (`resolved: false`)', undefined, { body: { resolved: false } }),
      deleteComment: remove('Deletes a comment and its replies; its author or a space admin'),
    },
    // Open-comment counts of the space and the change request change.
    stale: ['/spaces/{spaceId}', ...SPACE_LISTS],
  },
  CommentReply: {
    path: '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}',
    restId: { description: 'The REST id.' },
    list: { on: 'Comment', field: 'replies', description: 'Replies to the comment, oldest first', bodies: true },
    lookup: { field: 'commentReply', description: 'A reply by REST ids; `changeRequestId` may be the number', bodies: true },
    writes: {
      createCommentReply: create('POST', 'Replies to a comment', postBody, { inputs: { body: 'ContentBodyInput' } }),
      updateCommentReply: update('PUT', 'Edits the body of a reply; its author only', postBody, { inputs: { body: 'ContentBodyInput' } }),
      deleteCommentReply: remove('Deletes a reply; its author or a space admin'),
    },
    stale: ['/spaces/{spaceId}', ...SPACE_LISTS],
  },
} satisfies Record<string, Resource>;

export type ResourceName = keyof typeof RESOURCES;
