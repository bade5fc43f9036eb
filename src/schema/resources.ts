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
import { organizationBodies } from '../api/bodies/organizations.js';
import { siteBodies } from '../api/bodies/sites.js';
import { bodies, CHANGE_REQUEST_STATUSES, COMMENT_STATUSES, ORDERS } from '../api/rules.js';
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
  /** Body fields whose GraphQL type is declared by hand (an input object, an enum), by name (registered with `inputObject`). */
  inputs?: Record<string, string>;
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
    /** The query the list is read with when the parent was opened with a share key. */
    shareable?: boolean;
    /** Its items carry content bodies: REST is asked for the format the selection needs. */
    bodies?: boolean;
  };
  /** The root lookup by REST ids (the path parameters); `bodies` as for lists; `shareable`: a `shareKey` argument. */
  lookup?: { field: string; description: string; bodies?: boolean; shareable?: boolean };
  /** Its mutations, by name: creates, updates, deletes and the state transitions that are one REST write. */
  writes?: Record<string, Write>;
  /** What every write of it makes stale besides its list and itself: path templates over the
   * write's parameters and the written JSON's fields (a prefix: everything below is forgotten). */
  stale?: string[];
}

const string = (description: string): Filter => ({ kind: 'string', description });

const boolean = (description: string): Filter => ({ kind: 'boolean', description });

export const RESOURCES = {
  Organization: {
    path: '/orgs/{organizationId}',
    restIdKey: true,
    list: { on: 'Query', field: 'organizations', path: '/orgs', description: 'The organizations the caller belongs to' },
    lookup: { field: 'organization', description: 'An organization by REST id' },
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
      createTeam: {
        kind: 'create',
        method: 'PUT',
        description: 'Creates a team',
        rules: organizationBodies['team.create'],
        notes: { members: 'User ids of members to add; the caller joins as owner.' },
      },
      updateTeam: { method: 'PATCH', description: 'Renames a team', rules: organizationBodies['team.update'] },
      deleteTeam: { kind: 'delete', method: 'DELETE', description: 'Deletes a team and its permissions' },
    },
    // Counts and permissions shown elsewhere in the organization change (`Member.teamsCount`, …).
    stale: ['/orgs/{organizationId}'],
  },
  Invite: {
    path: '/orgs/{organizationId}/link-invites/{inviteId}',
    list: { on: 'Organization', field: 'linkInvites', description: 'Link invites of the organization' },
    lookup: { field: 'linkInvite', description: 'A link invite by REST id' },
    writes: {
      createLinkInvite: {
        kind: 'create',
        method: 'POST',
        description: 'Creates a link invite',
        rules: organizationBodies['linkInvite.create'],
        notes: { role: "Role given to who joins (default: the organization's); null for guests." },
      },
      updateLinkInvite: {
        method: 'PATCH',
        description: 'Changes the role of a link invite',
        rules: organizationBodies['linkInvite.update'],
        notes: { role: 'Null for guests.' },
      },
      deleteLinkInvite: { kind: 'delete', method: 'DELETE', description: 'Deletes a link invite' },
    },
    stale: ['/orgs/{organizationId}'],
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
    writes: {
      updateSite: { method: 'PATCH', description: 'Changes the title or visibility of a site', rules: siteBodies['site.update'] },
      publishSite: {
        method: 'POST',
        path: '/orgs/{organizationId}/sites/{siteId}/publish',
        description: 'Publishes a site to the audience of its visibility',
      },
      unpublishSite: { method: 'POST', path: '/orgs/{organizationId}/sites/{siteId}/unpublish', description: 'Takes a site offline' },
    },
    stale: ['/orgs/{organizationId}/sites'],
  },
  SiteRedirect: {
    path: '/orgs/{organizationId}/sites/{siteId}/redirects/{siteRedirectId}',
    listedOnly: true,
    list: { on: 'Site', field: 'redirects', description: 'Redirects of the site, oldest first' },
    writes: {
      createSiteRedirect: {
        kind: 'create',
        method: 'POST',
        description: 'Creates a redirect on a site; a source already redirected: CONFLICT',
        rules: siteBodies['siteRedirect.create'],
        notes: { source: 'The path to redirect from, e.g. `/old/page`.' },
        inputs: { destination: 'SiteRedirectDestinationInput' },
      },
      updateSiteRedirect: {
        method: 'PATCH',
        description: 'Changes the source or destination of a redirect',
        rules: siteBodies['siteRedirect.update'],
        inputs: { destination: 'SiteRedirectDestinationInput' },
      },
      deleteSiteRedirect: { kind: 'delete', method: 'DELETE', description: 'Deletes a redirect' },
    },
    // Site objects embed counts and lists: every read of the organization's sites is forgotten.
    stale: ['/orgs/{organizationId}/sites'],
  },

  // Content: spaces, collections, change requests, comments and replies.
  Space: {
    path: '/spaces/{spaceId}',
    restIdKey: true,
    jsonKeys: { organizationId: 'organization' },
    list: { on: 'Organization', field: 'spaces', path: '/orgs/{organizationId}/spaces', description: 'Spaces of the organization the caller can read' },
    lookup: { field: 'space', description: 'A space by REST id', shareable: true },
    writes: {
      createSpace: {
        kind: 'create',
        method: 'POST',
        description: 'Creates a space',
        rules: bodies['space.create'],
        notes: { parent: 'Id of the collection to create the space in (default: the organization root).' },
      },
      updateSpace: {
        method: 'PATCH',
        description: 'Updates a space',
        rules: bodies['space.update'],
        notes: { title: 'Needs edit.', emoji: 'Needs edit.', editMode: 'Needs admin.', defaultLevel: 'Needs admin.' },
      },
      restoreSpace: { method: 'POST', path: '/spaces/{spaceId}/restore', description: 'Restores a space deleted in the last 7 days' },
      duplicateSpace: { method: 'POST', path: '/spaces/{spaceId}/duplicate', description: 'Duplicates a space beside the original; the payload holds the copy' },
      lockSpace: { method: 'PATCH', body: { editMode: 'locked' }, description: 'Locks a space: all edits are locked (`editMode: locked`); needs admin' },
      unlockSpace: { method: 'PATCH', body: { editMode: 'live' }, description: 'Unlocks a locked space: users edit it directly (`editMode: live`); needs admin' },
    },
    // Collections embed what they hold, and a moved space's old parent is not known.
    stale: ['/orgs/{organizationId}/collections', '/collections'],
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
      createCollection: {
        kind: 'create',
        method: 'POST',
        description: 'Creates a collection',
        rules: bodies['collection.create'],
        notes: { parent: 'Id of the collection to nest it in (default: the organization root).' },
      },
      updateCollection: { method: 'PATCH', description: 'Updates a collection', rules: bodies['collection.update'] },
    },
    stale: ['/orgs/{organizationId}/spaces', '/collections'],
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
      createChangeRequest: { kind: 'create', method: 'POST', description: 'Creates a change request, as a draft', rules: bodies['changeRequest.create'] },
      updateChangeRequest: {
        method: 'PATCH',
        description: 'Changes the subject and/or the status of a change request',
        rules: bodies['changeRequest.update'],
        notes: { status: 'DRAFT, OPEN or ARCHIVED (MERGED only by mergeChangeRequest).' },
        inputs: { status: 'ChangeRequestStatus' },
      },
      archiveChangeRequest: { method: 'PATCH', body: { status: 'archived' }, description: 'Archives a change request (`status: archived`)' },
      reopenChangeRequest: { method: 'PATCH', body: { status: 'open' }, description: 'Opens a draft or archived change request (`status: open`)' },
      markChangeRequestDraft: { method: 'PATCH', body: { status: 'draft' }, description: 'Turns a change request back into a draft (`status: draft`)' },
    },
    // The space's counts and revision change.
    stale: ['/spaces/{spaceId}'],
  },
  Comment: {
    path: '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}',
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
      createComment: {
        kind: 'create',
        method: 'POST',
        description: 'Posts a comment in a change request',
        rules: bodies['comment.create'],
        notes: { page: 'The page (id) the comment is about.', node: 'The content node (id) the comment is about.' },
        inputs: { body: 'ContentBodyInput' },
      },
      updateComment: { method: 'PUT', description: 'Edits the body of a comment; its author only', rules: postBody, inputs: { body: 'ContentBodyInput' } },
      resolveComment: { method: 'PUT', body: { resolved: true }, description: 'Resolves a comment (`resolved: true`): sets `resolvedAt` and `resolvedBy`' },
      reopenComment: { method: 'PUT', body: { resolved: false }, description: 'Reopens a resolved comment (`resolved: false`)' },
      deleteComment: { kind: 'delete', method: 'DELETE', description: 'Deletes a comment and its replies; its author or a space admin' },
    },
    // Open-comment counts of the space and the change request change.
    stale: ['/spaces/{spaceId}'],
  },
  CommentReply: {
    path: '/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}',
    list: { on: 'Comment', field: 'replies', description: 'Replies to the comment, oldest first', bodies: true },
    lookup: { field: 'commentReply', description: 'A reply by REST ids; `changeRequestId` may be the number', bodies: true },
    writes: {
      createCommentReply: { kind: 'create', method: 'POST', description: 'Replies to a comment', rules: postBody, inputs: { body: 'ContentBodyInput' } },
      updateCommentReply: { method: 'PUT', description: 'Edits the body of a reply; its author only', rules: postBody, inputs: { body: 'ContentBodyInput' } },
      deleteCommentReply: { kind: 'delete', method: 'DELETE', description: 'Deletes a reply; its author or a space admin' },
    },
    stale: ['/spaces/{spaceId}'],
  },
} satisfies Record<string, Resource>;

export type ResourceName = keyof typeof RESOURCES;
