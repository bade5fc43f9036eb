/**
 * The graph's conventions (API.md "The graph"), checked mechanically on the built schema: nodes,
 * connections, mutations, enums, counts, edges for REST id references, root lookups, descriptions
 * and error codes. Each check lists every offender, so a failure says what to fix.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/rest/errors.js';
import { schema } from '../../src/schema/index.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

/** The graph's own types (no introspection, federation or built-in scalar types). */
const ownTypes = Object.values(schema.getTypeMap()).filter(
  (t) => !t.name.startsWith('_') && !t.name.includes('__') && !['String', 'Int', 'Float', 'Boolean', 'ID'].includes(t.name),
);
const objectTypes = ownTypes.filter(isObjectType);
const rootNames = ['Query', 'Mutation', 'Subscription'];
const query = schema.getQueryType()!;
const mutation = schema.getMutationType()!;
const subscription = schema.getSubscriptionType()!;

/** `Type.field` for every field of every object type, with its field. */
const allFields = objectTypes.flatMap((type) =>
  Object.values(type.getFields())
    .filter((f) => !f.name.startsWith('_'))
    .map((field) => ({ type, field, coord: `${type.name}.${field.name}` })),
);

const show = (t: GraphQLType) => String(t);
const isConnection = (t: GraphQLNamedType) => isObjectType(t) && t.name.endsWith('Connection');
const implementsNode = (t: GraphQLObjectType) => t.getInterfaces().some((i) => i.name === 'Node');
const capitalize = (s: string) => s[0].toUpperCase() + s.slice(1);

function fieldOf(type: string, field: string): GraphQLField<unknown, unknown> | undefined {
  const t = schema.getType(type);
  return isObjectType(t) || isInterfaceType(t) ? t.getFields()[field] : undefined;
}

function argTypes(field: GraphQLField<unknown, unknown> | undefined): Record<string, string> {
  return Object.fromEntries((field?.args ?? []).map((a) => [a.name, show(a.type)]));
}

describe('nodes', () => {
  const nodes = objectTypes.filter(implementsNode);

  it('are the addressable resources of API.md and the issue', () => {
    const names = nodes.map((t) => t.name);
    for (const name of [
      'Space',
      'Collection',
      'ChangeRequest',
      'Comment',
      'CommentReply',
      'SiteSection',
      'SiteSpace',
      'SiteSectionGroup',
      'SiteRedirect',
      'ShareLink',
      'Site',
      'Invite',
      'Member',
      'Team',
      'SamlProvider',
      'OpenApiSpec',
      'TranslationSettings',
      'CustomFont',
      'Integration',
      'Organization',
      'User',
    ])
      expect(names, name).toContain(name);
  });

  it('each have `id: ID!` and `restId: String!`', () => {
    const bad = nodes.flatMap((t) => {
      const f = t.getFields();
      return [
        show(f.id?.type) === 'ID!' ? [] : [`${t.name}.id: ${f.id && show(f.id.type)}`],
        f.restId && show(f.restId.type) === 'String!' ? [] : [`${t.name}.restId: ${f.restId && show(f.restId.type)}`],
      ].flat();
    });
    expect(bad).toEqual([]);
  });

  it('are resolved by `node(id: ID!)` and `nodes(ids: [ID!]!)`', () => {
    expect(show(query.getFields().node.type)).toBe('Node');
    expect(argTypes(query.getFields().node)).toEqual({ id: 'ID!' });
    expect(show(query.getFields().nodes.type)).toBe('[Node]!');
    expect(argTypes(query.getFields().nodes)).toEqual({ ids: '[ID!]!' });
  });
});

describe('connections', () => {
  const connections = ownTypes.filter(isConnection) as GraphQLObjectType[];

  it('have `edges { cursor node }`, `nodes` and `pageInfo`', () => {
    const bad = connections.flatMap((c) => {
      const f = c.getFields();
      const edge = f.edges && getNamedType(f.edges.type);
      const node = f.nodes && getNamedType(f.nodes.type);
      const problems: string[] = [];
      if (!f.edges || !isObjectType(edge) || show(f.edges.type) !== `[${edge.name}!]!`) problems.push(`${c.name}.edges`);
      if (!node || show(f.nodes.type) !== `[${node.name}!]!`) problems.push(`${c.name}.nodes`);
      if (!f.pageInfo || show(f.pageInfo.type) !== 'PageInfo!') problems.push(`${c.name}.pageInfo`);
      if (isObjectType(edge)) {
        const e = edge.getFields();
        if (!e.cursor || show(e.cursor.type) !== 'String!') problems.push(`${edge.name}.cursor`);
        if (!e.node || node === undefined || show(e.node.type) !== `${node.name}!`) problems.push(`${edge.name}.node`);
        if (!edge.name.endsWith('Edge')) problems.push(`${edge.name}: an edge type's name ends with Edge`);
      }
      return problems;
    });
    expect(bad).toEqual([]);
  });

  it('are only reached by nullable fields taking forward arguments (`first: Int`, `after: String`, no `last`/`before`)', () => {
    const bad = allFields
      .filter(({ field }) => isConnection(getNamedType(field.type)))
      .flatMap(({ field, coord }) => {
        const args = argTypes(field);
        const problems: string[] = [];
        if (args.first !== 'Int' || args.after !== 'String') problems.push(`${coord}(first, after): ${JSON.stringify(args)}`);
        if ('last' in args || 'before' in args) problems.push(`${coord}: backward arguments`);
        if (isNonNullType(field.type)) problems.push(`${coord}: non-null (it makes a REST call)`);
        return problems;
      });
    expect(bad).toEqual([]);
  });

  it('never appear as plain lists of nodes where a REST list exists (connection fields are the REST lists)', () => {
    // A list of nodes is allowed only where REST embeds the objects (no REST list call).
    const embedded = new Set([
      'SiteSection.siteSpaces',
      'SiteSectionGroup.sections',
      'InviteToOrganizationPayload.users',
      'Reaction.users',
    ]);
    const bad = allFields
      .filter(({ type }) => !isConnection(type))
      .filter(({ field }) => isListType(getNullableType(field.type)))
      .filter(({ field }) => {
        const named = getNamedType(field.type);
        return isObjectType(named) && implementsNode(named);
      })
      .map(({ coord }) => coord)
      .filter((coord) => !embedded.has(coord) && !coord.startsWith('Query.node'));
    expect(bad).toEqual([]);
  });

  it('take REST filters with enum types where REST has an enum', () => {
    const enumArgs = ['status', 'order', 'sort', 'role', 'category', 'target', 'format'];
    const bad = allFields.flatMap(({ field, coord }) =>
      field.args
        .filter((a) => enumArgs.includes(a.name) && !isEnumType(getNamedType(a.type)))
        .map((a) => `${coord}(${a.name}: ${show(a.type)})`),
    );
    expect(bad).toEqual([]);
  });

  it('carry the REST filters of API.md under their REST names', () => {
    expect(argTypes(fieldOf('Space', 'changeRequests'))).toMatchObject({ status: 'ChangeRequestStatus', contributor: 'String' });
    expect(argTypes(fieldOf('Organization', 'members'))).toMatchObject({
      role: 'MemberRoleFilter',
      search: 'String',
      sort: 'MemberSort',
      order: 'SortOrder',
    });
    expect(argTypes(fieldOf('ChangeRequest', 'comments'))).toMatchObject({
      order: 'SortOrder',
      format: 'ContentFormat',
      status: 'CommentStatusFilter',
      targetPage: 'String',
    });
    expect(argTypes(fieldOf('Organization', 'collections'))).toMatchObject({ nested: 'Boolean' });
    expect(argTypes(fieldOf('Organization', 'teams'))).toMatchObject({ owner: 'String', title: 'String' });
    expect(argTypes(fieldOf('Member', 'teams'))).toMatchObject({ title: 'String' });
    expect(argTypes(fieldOf('Member', 'spaces'))).toMatchObject({ order: 'SortOrder' });
    expect(argTypes(fieldOf('Space', 'links'))).toMatchObject({ status: 'LinkStatus' });
    expect(argTypes(fieldOf('Space', 'aggregatePermissions'))).toMatchObject({ role: 'Role' });
    expect(argTypes(fieldOf('Integration', 'installations'))).toMatchObject({ externalId: 'String' });
    expect(argTypes(fieldOf('Site', 'sections'))).toMatchObject({ shareKey: 'String' });
    expect(argTypes(fieldOf('Comment', 'replies'))).toMatchObject({ format: 'ContentFormat' });
  });

  it('of `{permission, user}` and `{team, role}` lists carry the extra field on the edge', () => {
    expect(show(fieldOf('UserPermissionEdge', 'permission')!.type)).toBe('Role!');
    expect(show(fieldOf('MemberSpaceEdge', 'permission')!.type)).toBe('Role!');
    expect(show(fieldOf('MemberTeamEdge', 'role')!.type)).toBe('TeamMemberRole!');
  });
});

describe('mutations', () => {
  const fields = Object.values(mutation.getFields());

  it('are `verbNoun(input: VerbNounInput!): VerbNounPayload` with `clientMutationId` in input and payload', () => {
    const bad = fields.flatMap((f) => {
      const name = capitalize(f.name);
      const problems: string[] = [];
      if (!/^[a-z]+[A-Z][A-Za-z]*$/.test(f.name)) problems.push(`${f.name}: not verbNoun`);
      if (f.args.length !== 1 || f.args[0].name !== 'input' || show(f.args[0].type) !== `${name}Input!`)
        problems.push(`${f.name}(${f.args.map((a) => `${a.name}: ${show(a.type)}`).join(', ')})`);
      const input = getNamedType(f.args[0]?.type);
      if (!isInputObjectType(input) || show(input.getFields().clientMutationId?.type) !== 'ID')
        problems.push(`${name}Input.clientMutationId`);
      if (show(f.type) !== `${name}Payload`) problems.push(`${f.name}: ${show(f.type)} (nullable ${name}Payload)`);
      const payload = getNamedType(f.type);
      if (!isObjectType(payload) || show(payload.getFields().clientMutationId?.type) !== 'ID')
        problems.push(`${name}Payload.clientMutationId`);
      else if (Object.keys(payload.getFields()).length < 2) problems.push(`${name}Payload: returns nothing but clientMutationId`);
      return problems;
    });
    expect(bad).toEqual([]);
  });

  it('that delete return `deletedId: ID!`', () => {
    const bad = fields
      .filter((f) => /^(delete|remove)|^unpublishIntegration$/.test(f.name))
      .filter((f) => {
        const payload = getNamedType(f.type) as GraphQLObjectType;
        // Removing a role or a section from a group deletes no node: those return the changed objects.
        return !/^remove(Space|Collection)UserPermission$|^removeSiteSectionFromGroup$|^remove\w*Reaction$/.test(f.name)
          ? show(payload.getFields().deletedId?.type) !== 'ID!'
          : false;
      })
      .map((f) => f.name);
    expect(bad).toEqual([]);
  });

  it("that add to or remove from a list also return the list's parent", () => {
    const objectFields = (f: GraphQLField<unknown, unknown>) =>
      Object.values((getNamedType(f.type) as GraphQLObjectType).getFields()).filter((p) => isObjectType(getNamedType(p.type)));
    const bad = fields
      .filter((f) => /^(create|delete)/.test(f.name) || f.name === 'removeMember')
      .filter((f) => objectFields(f).length < (f.name.startsWith('create') ? 2 : 1))
      .map((f) => f.name);
    expect(bad).toEqual([]);
  });

  it('return the changed node(s) as nodes, never as bare REST ids', () => {
    const bad = fields.flatMap((f) => {
      const payload = getNamedType(f.type) as GraphQLObjectType;
      return Object.values(payload.getFields())
        .filter((p) => p.name !== 'clientMutationId' && p.name !== 'deletedId')
        .filter((p) => /Id$/.test(p.name))
        .map((p) => `${payload.name}.${p.name}`);
    });
    expect(bad).toEqual([]);
  });

  it('include every mutation that API.md and the issue name', () => {
    const names = new Set(fields.map((f) => f.name));
    const required = [
      'createSpace',
      'updateSpace',
      'deleteSpace',
      'restoreSpace',
      'duplicateSpace',
      'moveSpace',
      'transferSpace',
      // Collections: the subset REST supports (no restore, no duplicate).
      'createCollection',
      'updateCollection',
      'deleteCollection',
      'moveCollection',
      'transferCollection',
      'createChangeRequest',
      'updateChangeRequest',
      'mergeChangeRequest',
      'updateChangeRequestFromMain',
      'archiveChangeRequest',
      'reopenChangeRequest',
      'markChangeRequestDraft',
      'createComment',
      'updateComment',
      'deleteComment',
      'resolveComment',
      'reopenComment',
      'addCommentReaction',
      'removeCommentReaction',
      'createCommentReply',
      'updateCommentReply',
      'deleteCommentReply',
      'addCommentReplyReaction',
      'removeCommentReplyReaction',
      'createSiteSection',
      'updateSiteSection',
      'deleteSiteSection',
      'moveSiteSection',
      'createSiteSectionGroup',
      'updateSiteSectionGroup',
      'deleteSiteSectionGroup',
      'moveSiteSectionGroup',
      'addSiteSectionToGroup',
      'removeSiteSectionFromGroup',
      'createSiteRedirect',
      'updateSiteRedirect',
      'deleteSiteRedirect',
      'createShareLink',
      'updateShareLink',
      'deleteShareLink',
      'activateShareLink',
      'deactivateShareLink',
      'updateSite',
      'publishSite',
      'unpublishSite',
      'updateSitePublishingAuth',
      'inviteToOrganization',
      'joinOrganization',
      'createLinkInvite',
      'updateLinkInvite',
      'deleteLinkInvite',
      'updateMember',
      'removeMember',
      'setMemberSso',
      'pingOrganization',
      'createTeam',
      'updateTeam',
      'deleteTeam',
      'grantSpacePermission',
      'updateSpaceUserPermission',
      'removeSpaceUserPermission',
      'grantCollectionPermission',
      'updateCollectionUserPermission',
      'removeCollectionUserPermission',
      'createSamlProvider',
      'updateSamlProvider',
      'deleteSamlProvider',
      'createOpenApiSpec',
      'updateOpenApiSpec',
      'deleteOpenApiSpec',
      'createTranslationSettings',
      'updateTranslationSettings',
      'deleteTranslationSettings',
      'createCustomFont',
      'updateCustomFont',
      'deleteCustomFont',
      'publishIntegration',
      'unpublishIntegration',
      // The space lifecycle's edit-mode transition (`live` ↔ `locked`).
      'lockSpace',
      'unlockSpace',
    ];
    expect(required.filter((n) => !names.has(n))).toEqual([]);
  });

  it('take REST path parameters as `String!` input fields named as the seed', () => {
    const params = [
      'spaceId',
      'collectionId',
      'organizationId',
      'changeRequestId',
      'commentId',
      'commentReplyId',
      'siteId',
      'userId',
      'teamId',
    ];
    const bad = fields.flatMap((f) => {
      const input = getNamedType(f.args[0].type);
      if (!isInputObjectType(input)) return [];
      return Object.values(input.getFields())
        .filter((i) => params.includes(i.name) && show(i.type) !== 'String!')
        .map((i) => `${input.name}.${i.name}: ${show(i.type)}`);
    });
    expect(bad).toEqual([]);
  });
});

describe('fields', () => {
  it('are camelCase; enum values are SCREAMING_SNAKE_CASE mapped to the REST strings', () => {
    const camel = /^[a-z][A-Za-z0-9]*$/;
    const badFields = ownTypes.flatMap((t) =>
      isObjectType(t) || isInputObjectType(t) || isInterfaceType(t)
        ? Object.keys(t.getFields())
            .filter((f) => !f.startsWith('_') && !camel.test(f))
            .map((f) => `${t.name}.${f}`)
        : [],
    );
    expect(badFields).toEqual([]);
    const badValues = ownTypes.filter(isEnumType).flatMap((e) =>
      e.getValues().flatMap((v) => {
        const problems: string[] = [];
        if (!/^[A-Z][A-Z0-9_]*$/.test(v.name)) problems.push(`${e.name}.${v.name}: not SCREAMING_SNAKE_CASE`);
        const rest = String(v.value);
        const expected = rest
          .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
          .replace(/[^a-zA-Z0-9]+/g, '_')
          .toUpperCase();
        if (expected !== v.name) problems.push(`${e.name}.${v.name} ↔ ${rest}`);
        return problems;
      }),
    );
    expect(badValues).toEqual([]);
  });

  it('are JSON only for the open shapes the seed leaves unshown', () => {
    const open = new Set([
      'AskAnswer.details', // "how the query was read": not shown
      'CommentTarget.node', // a content node with its preview document
      'ContentBody.document', // the document format: not shown
      'Integration.configurations', // maps of configuration properties
      'Integration.contentSecurityPolicy', // a string or an object of directives
      'IntegrationInstallation.configuration', // the integration's own settings
      'IntegrationInstallation.target', // "response: not shown"
      'Site.features', // not in the seed
      'Space.gitSync', // not served by the embedded upstream; installation providers: not shown
      'Space.visitorAuth', // "other variants: not shown"
    ]);
    const bad = allFields
      .filter(({ field, coord }) => getNamedType(field.type).name === 'JSON' && !open.has(coord))
      .map(({ coord }) => coord);
    expect(bad).toEqual([]);
  });

  it('named `id` are global ids (`ID!`) on every object: clients cache objects by `id`; REST ids are `restId`', () => {
    const bad = allFields.filter(({ field }) => field.name === 'id' && show(field.type) !== 'ID!').map(({ coord }) => coord);
    expect(bad).toEqual([]);
    const restIds = allFields.filter(({ field }) => field.name === 'restId' && show(field.type) !== 'String!').map(({ coord }) => coord);
    expect(restIds).toEqual([]);
  });

  it('hold timestamps as DateTime and no field is typed by a REST enum as a String', () => {
    const bad = allFields
      .filter(({ field }) => /At$/.test(field.name) && getNamedType(field.type).name !== 'DateTime')
      .map(({ coord, field }) => `${coord}: ${show(field.type)}`);
    expect(bad).toEqual([]);
    const enumNames = ['status', 'visibility', 'role', 'defaultRole', 'defaultLevel', 'editMode', 'target', 'type', 'kind'];
    // REST leaves these open (the seed shows samples only: "full set not shown").
    const open = new Set(['Organization.type', 'ContentRef.kind', 'SiteRedirectLookup.target']);
    const strings = allFields
      .filter(({ field, coord }) => enumNames.includes(field.name) && getNamedType(field.type).name === 'String' && !open.has(coord))
      .map(({ coord }) => coord);
    expect(strings).toEqual([]);
  });

  it('name a REST count `xCount` exactly where the graph has `x` as objects, as API.md lists', () => {
    for (const coord of [
      'Space.changeRequestsCount',
      'Space.changeRequestsOpenCount',
      'Space.changeRequestsDraftCount',
      'Space.commentsCount',
      'ChangeRequest.commentsCount',
      'Comment.repliesCount',
      'Member.spacesCount',
      'Member.teamsCount',
      'Team.membersCount',
      'Team.spacesCount',
    ]) {
      const [type, field] = coord.split('.');
      expect(show(fieldOf(type, field)?.type as GraphQLType), coord).toBe('Int!');
    }
    // Names that are objects (connections or lists of objects) somewhere in the graph.
    const objectNames = new Set(
      allFields
        .filter(({ field }) => isObjectType(getNamedType(field.type)) && !isScalarType(getNamedType(field.type)))
        .map(({ field }) => field.name),
    );
    objectNames.add('members'); // Team.membersCount: API.md names it so (teams list members elsewhere in REST)
    // REST names kept as they are: a count of broken links (not of change requests), a REST `…Count`.
    const restNames = new Set(['SpaceLinkBrokenStats.changeRequest', 'OpenApiSpec.lastProcessedErrorCount']);
    const ints = allFields.filter(({ field, coord }) => getNamedType(field.type).name === 'Int' && !restNames.has(coord));
    const countsOfObjects = ints
      .filter(({ field }) => objectNames.has(field.name))
      .map(({ coord }) => `${coord}: a count named like objects`);
    const strayCounts = ints
      .filter(({ field }) => /.Count$/.test(field.name))
      .filter(({ field }) => !objectNames.has(field.name.replace(/(Open|Draft)?Count$/, '')))
      .map(({ coord }) => `${coord}: no objects of that name`);
    expect([...countsOfObjects, ...strayCounts]).toEqual([]);
  });

  it('turn REST id references into edges to objects', () => {
    const nodeFields = new Set(objectTypes.filter(implementsNode).map((t) => t.name[0].toLowerCase() + t.name.slice(1)));
    ['parent', 'owner', 'createdBy', 'postedBy', 'resolvedBy', 'defaultTeam', 'section', 'sectionGroup'].forEach((n) => nodeFields.add(n));
    // A String field named like a node, or `<node>Id`, must have an object edge beside it; but a
    // redirect destination names its site space without the section a SiteSpace node is keyed by.
    const keyless = ['SiteRedirectDestination.siteSpaceId'];
    const bad = allFields
      .filter(({ type }) => !rootNames.includes(type.name))
      .filter(({ coord }) => !keyless.includes(coord))
      .filter(({ field }) => getNamedType(field.type).name === 'String')
      .filter(({ field }) => nodeFields.has(field.name) || (field.name.endsWith('Id') && nodeFields.has(field.name.slice(0, -2))))
      .filter(({ type, field }) => {
        const edge = type.getFields()[field.name.replace(/Id$/, '')];
        return !edge || !isObjectType(getNamedType(edge.type));
      })
      .map(({ coord }) => coord);
    expect(bad).toEqual([]);
    for (const coord of [
      'Space.organization:Organization',
      'Space.parent:Collection',
      'Collection.organization:Organization',
      'Collection.parent:Collection',
      'Collection.spaces:SpaceConnection',
      'ChangeRequest.space:Space',
      'ChangeRequest.createdBy:User',
      'Comment.replies:CommentReplyConnection',
      'Comment.changeRequest:ChangeRequest',
      'CommentReply.comment:Comment',
      'SiteSection.siteSpaces:SiteSpace',
      'SiteSection.site:Site',
      'SiteSection.sectionGroup:SiteSectionGroup',
      'SiteSpace.space:Space',
      'SiteSpace.section:SiteSection',
      'SiteRedirect.site:Site',
      'ShareLink.site:Site',
      'Site.organization:Organization',
      'Member.user:User',
      'Member.organization:Organization',
      'Team.organization:Organization',
      'Invite.organization:Organization',
      'SamlProvider.defaultTeam:Team',
      'Integration.owner:Organization',
      'OpenApiSpec.organization:Organization',
      'TranslationSettings.organization:Organization',
      'CustomFont.organization:Organization',
      'CommentTarget.space:Space',
      'CommentTarget.changeRequest:ChangeRequest',
      'AskSource.space:Space',
      'SsoLogin.samlProvider:SamlProvider',
      'IntegrationInstallation.organization:Organization',
    ]) {
      const [path, type] = coord.split(':');
      const [owner, field] = path.split('.');
      expect(getNamedType(fieldOf(owner, field)?.type as GraphQLType)?.name, path).toBe(type);
    }
  });
});

describe('root fields', () => {
  it('are the lookups of API.md, taking REST identifiers named as the seed', () => {
    const q = query.getFields();
    expect(show(q.viewer.type)).toBe('User!');
    expect(argTypes(q.organization)).toEqual({ organizationId: 'String!' });
    expect(argTypes(q.space)).toEqual({ spaceId: 'String!', shareKey: 'String' });
    expect(argTypes(q.collection)).toEqual({ collectionId: 'String!' });
    expect(argTypes(q.changeRequest)).toEqual({ spaceId: 'String!', changeRequestId: 'String!' });
    expect(argTypes(q.integration)).toEqual({ integrationName: 'String!' });
    expect(argTypes(q.user)).toEqual({ userId: 'String!' });
    expect(argTypes(q.integrations)).toMatchObject({
      search: 'String',
      category: 'IntegrationCategory',
      blockDomain: 'String',
      blocks: 'Boolean',
      contentSources: 'Boolean',
      owner: 'String',
    });
    for (const name of ['organization', 'space', 'collection', 'changeRequest', 'integration', 'user'])
      expect(show(q[name].type), name).toBe(getNamedType(q[name].type).name); // nullable: errors stay local
  });

  it('and every mutation and subscription field have a description naming the REST call', () => {
    const restCall = /`(GET|POST|PUT|PATCH|DELETE)? ?[/.…]|\b(GET|POST|PUT|PATCH|DELETE)\b/;
    const exempt = new Set(['Query.node', 'Query.nodes']);
    const bad = [query, mutation, subscription].flatMap((root) =>
      Object.values(root.getFields())
        .filter((f) => !f.name.startsWith('_') && !exempt.has(`${root.name}.${f.name}`))
        .filter((f) => !f.description || !restCall.test(f.description))
        .map((f) => `${root.name}.${f.name}`),
    );
    expect(bad).toEqual([]);
  });

  it('API.md read-only computations and subscriptions exist with their arguments', () => {
    expect(argTypes(fieldOf('Organization', 'ask'))).toMatchObject({ query: 'String!', format: 'ContentFormat', details: 'Boolean' });
    expect(fieldOf('Organization', 'suggestedQuestions')).toBeDefined();
    expect(fieldOf('Organization', 'ssoLogins')).toBeDefined();
    expect(argTypes(fieldOf('ChangeRequest', 'pdfUrl'))).toEqual({ only: 'Boolean', page: 'String' });
    expect(argTypes(fieldOf('Site', 'redirectLookup'))).toEqual({ source: 'String!', shareKey: 'String' });
    expect(argTypes(subscription.getFields().askStream)).toMatchObject({
      organizationId: 'String!',
      query: 'String!',
      format: 'ContentFormat',
      details: 'Boolean',
    });
    expect(argTypes(subscription.getFields().suggestedQuestionsStream)).toEqual({ organizationId: 'String!' });
  });
});

describe('descriptions', () => {
  it('every type of the graph has one', () => {
    expect(ownTypes.filter((t) => !t.description).map((t) => t.name)).toEqual([]);
  });
});

describe('error codes', () => {
  it('the source gives no `extensions.code` outside the fixed set', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) =>
        statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith('.ts') ? [join(dir, f)] : [],
      );
    const codes = ['src/schema', 'src/gateway', 'src/rest']
      .flatMap(files)
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\bcode: '([A-Z_]+)'/g)].map((m) => `${file}: ${m[1]}`));
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.filter((c) => !(ERROR_CODES as readonly string[]).includes(c.split(': ')[1]))).toEqual([]);
  });

  describe('at run time', () => {
    let t: TestStack;
    beforeAll(async () => {
      t = await startStack();
    });
    afterAll(() => t.stop());

    const b64 = (s: string) => Buffer.from(s).toString('base64');

    it('a bad global id is BAD_USER_INPUT at its path (`node`) or index (`nodes`), the rest resolves', async () => {
      const res = await t.gql(
        `query($ids: [ID!]!) { viewer { restId } a: node(id: "garbage") { id } b: node(id: "${b64('Foo:bar')}") { id }
           c: node(id: "${b64('Comment:abc')}") { id } nodes(ids: $ids) { id } }`,
        { ids: [b64(`User:${t.world.users.admin.id}`), 'garbage', b64('Foo:bar'), b64('Comment:abc')] },
      );
      expect(res.data).toEqual({
        viewer: { restId: t.world.users.admin.id },
        a: null,
        b: null,
        c: null,
        nodes: [{ id: b64(`User:${t.world.users.admin.id}`) }, null, null, null],
      });
      const byPath = Object.fromEntries(res.errors!.map((e) => [e.path!.join('.'), e.extensions?.code]));
      expect(byPath).toEqual({
        a: 'BAD_USER_INPUT',
        b: 'BAD_USER_INPUT',
        c: 'BAD_USER_INPUT',
        'nodes.1': 'BAD_USER_INPUT',
        'nodes.2': 'BAD_USER_INPUT',
        'nodes.3': 'BAD_USER_INPUT',
      });
      expect(t.calls.filter((c) => c.path.includes('abc') || c.path.includes('bar'))).toEqual([]);
    });

    it('a global id this graph never issues (bytes not UTF-8, a twin with stray low bits) is BAD_USER_INPUT, no REST call', async () => {
      const issued = b64(`User:${t.world.users.admin.id}`);
      // The same bytes in base64 with other low bits in the last digit before the padding.
      const last = issued.replace(/=+$/, '').length - 1;
      const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      const twin = [...ALPHABET]
        .map((digit) => issued.slice(0, last) + digit + issued.slice(last + 1))
        .find((id) => id !== issued && Buffer.from(id, 'base64').equals(Buffer.from(issued, 'base64')))!;
      expect(twin).toBeDefined();
      const notUtf8 = Buffer.concat([Buffer.from('User:'), Buffer.from([0xc3, 0x28])]).toString('base64');
      t.resetCalls();
      const res = await t.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [issued, twin, notUtf8] });
      expect(res.data).toEqual({ nodes: [{ id: issued }, null, null] });
      expect(res.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
        [['nodes', 1], 'BAD_USER_INPUT'],
        [['nodes', 2], 'BAD_USER_INPUT'],
      ]);
      expect(t.calls.map((c) => c.path)).toEqual([`/users/${t.world.users.admin.id}`]);
    });

    it('a failed REST call gives a code of the set and `extensions.upstream`', async () => {
      const res = await t.gql('{ viewer { restId } space(spaceId: "nope") { id } }');
      expect(res.data).toEqual({ viewer: { restId: t.world.users.admin.id }, space: null });
      expect(res.errors![0].path).toEqual(['space']);
      expect(res.errors![0].extensions).toMatchObject({
        code: 'NOT_FOUND',
        upstream: { status: 404, method: 'GET', path: '/spaces/nope' },
      });
    });

    it('parse and validation errors use BAD_USER_INPUT too', async () => {
      for (const q of ['{ viewer { id ', '{ nope }', '{ organization(organizationId: "x") { members(role: BOGUS) { nodes { id } } } }']) {
        const res = await t.gql(q);
        expect(
          res.errors?.map((e) => e.extensions?.code),
          q,
        ).toEqual(['BAD_USER_INPUT']);
      }
    });
  });
});
