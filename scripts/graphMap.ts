/**
 * Where each REST endpoint lives in the graph (schema coordinates `Type.field`), written from the
 * binding names of API.md and the issue texts. test/endpoints/graph.test.ts checks that every
 * endpoint has an entry and that every coordinate exists in the schema; docs/ENDPOINTS.md shows them.
 */

const CR = '/spaces/{spaceId}/change-requests/{changeRequestId}';
const COMMENT = `${CR}/comments/{commentId}`;
const REPLY = `${COMMENT}/replies/{commentReplyId}`;
const ORG = '/orgs/{organizationId}';
const SITE = `${ORG}/sites/{siteId}`;

/** Every GET: the field that serves it (a connection, a root lookup, a computed field or a subscription). */
export const readFields: Record<string, string> = {
  // Change request comments
  [`GET ${CR}/comments`]: 'ChangeRequest.comments',
  [`GET ${COMMENT}`]: 'Query.comment',
  [`GET ${COMMENT}/replies`]: 'Comment.replies',
  [`GET ${REPLY}`]: 'Query.commentReply',
  // Site section groups, sections
  [`GET ${SITE}/section-groups`]: 'Site.sectionGroups',
  [`GET ${SITE}/sections`]: 'Site.sections',
  // Spaces
  'GET /spaces/{spaceId}': 'Query.space',
  'GET /spaces/{spaceId}/links': 'Space.links',
  [`GET ${ORG}/spaces`]: 'Organization.spaces',
  // Collections
  'GET /collections/{collectionId}': 'Query.collection',
  'GET /collections/{collectionId}/spaces': 'Collection.spaces',
  [`GET ${ORG}/collections`]: 'Organization.collections',
  // Organization invites
  [`GET ${ORG}/link-invites`]: 'Organization.linkInvites',
  [`GET ${ORG}/link-invites/{inviteId}`]: 'Query.linkInvite',
  // Organization members
  [`GET ${ORG}/members`]: 'Organization.members',
  [`GET ${ORG}/members/{userId}`]: 'Query.member',
  [`GET ${ORG}/members/{userId}/spaces`]: 'Member.spaces',
  [`GET ${ORG}/members/{userId}/teams`]: 'Member.teams',
  // Teams
  [`GET ${ORG}/teams`]: 'Organization.teams',
  [`GET ${ORG}/teams/{teamId}`]: 'Query.team',
  // Change requests
  'GET /spaces/{spaceId}/change-requests': 'Space.changeRequests',
  [`GET ${CR}`]: 'Query.changeRequest',
  [`GET ${CR}/pdf`]: 'ChangeRequest.pdfUrl',
  // Space and collection user permissions
  'GET /spaces/{spaceId}/permissions/users': 'Space.userPermissions',
  'GET /spaces/{spaceId}/permissions/aggregate': 'Space.aggregatePermissions',
  'GET /collections/{collectionId}/permissions/users': 'Collection.userPermissions',
  'GET /collections/{collectionId}/permissions/aggregate': 'Collection.aggregatePermissions',
  // Integrations
  'GET /integrations': 'Query.integrations',
  'GET /integrations/{integrationName}': 'Query.integration',
  'GET /integrations/{integrationName}/installations': 'Integration.installations',
  // SAML and SSO
  [`GET ${ORG}/saml`]: 'Organization.samlProviders',
  [`GET ${ORG}/saml/{samlProviderId}`]: 'Query.samlProvider',
  [`GET ${ORG}/sso`]: 'Organization.ssoLogins',
  // OpenAPI specs, translations, fonts
  [`GET ${ORG}/openapi`]: 'Organization.openApiSpecs',
  [`GET ${ORG}/openapi/{specSlug}`]: 'Query.openApiSpec',
  [`GET ${ORG}/translations`]: 'Organization.translations',
  [`GET ${ORG}/translations/{translationSettingsId}`]: 'Query.translationSettings',
  [`GET ${ORG}/fonts`]: 'Organization.fonts',
  [`GET ${ORG}/fonts/{fontId}`]: 'Query.customFont',
  // Site redirects, share links
  [`GET ${SITE}/redirects`]: 'Site.redirects',
  [`GET ${SITE}/redirect`]: 'Site.redirectLookup',
  [`GET ${SITE}/share-links`]: 'Site.shareLinks',
  // Organization AI ask (the streams are subscriptions)
  [`GET ${ORG}/ask/questions`]: 'Organization.suggestedQuestions',
  [`GET ${ORG}/ask/questions/stream`]: 'Subscription.suggestedQuestionsStream',
  [`GET ${ORG}/ask/stream`]: 'Subscription.askStream',
  // Site operations of the changelog
  [`GET ${SITE}/publishing/auth`]: 'Site.publishingAuth',
  // Official extras
  'GET /user': 'Query.viewer',
  'GET /users/{userId}': 'Query.user',
  'GET /orgs': 'Query.organizations',
  [`GET ${ORG}`]: 'Query.organization',
  [`GET ${ORG}/sites`]: 'Organization.sites',
  [`GET ${SITE}`]: 'Query.site',
};

/**
 * Writes that are read-only computations: API.md makes them query fields, not mutations
 * ("Read-only computations are query fields"). Their entry in `writeMutations` is that field.
 */
export const readOnlyWrites = new Set([`POST ${ORG}/ask`]);

const m = (...names: string[]) => names.map((name) => `Mutation.${name}`);

/** Every POST/PUT/PATCH/DELETE: the mutation(s) that serve it (one per state transition). */
export const writeMutations: Record<string, string[]> = {
  // Change request comments
  [`POST ${CR}/comments`]: m('createComment'),
  [`PUT ${COMMENT}`]: m('updateComment', 'resolveComment', 'reopenComment', 'addCommentReaction', 'removeCommentReaction'),
  [`DELETE ${COMMENT}`]: m('deleteComment'),
  [`POST ${COMMENT}/replies`]: m('createCommentReply'),
  [`PUT ${REPLY}`]: m('updateCommentReply', 'addCommentReplyReaction', 'removeCommentReplyReaction'),
  [`DELETE ${REPLY}`]: m('deleteCommentReply'),
  // Site section groups
  [`POST ${SITE}/section-groups`]: m('createSiteSectionGroup'),
  [`DELETE ${SITE}/section-groups/{siteSectionGroupId}`]: m('deleteSiteSectionGroup'),
  [`PATCH ${SITE}/section-groups/{siteSectionGroupId}`]: m('updateSiteSectionGroup'),
  [`POST ${SITE}/section-groups/{siteSectionGroupId}/sections`]: m('addSiteSectionToGroup'),
  [`DELETE ${SITE}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}`]: m('removeSiteSectionFromGroup'),
  [`POST ${SITE}/section-groups/{siteSectionGroupId}/move`]: m('moveSiteSectionGroup'),
  // Site sections
  [`POST ${SITE}/sections`]: m('createSiteSection'),
  [`DELETE ${SITE}/sections/{siteSectionId}`]: m('deleteSiteSection'),
  [`PATCH ${SITE}/sections/{siteSectionId}`]: m('updateSiteSection'),
  [`POST ${SITE}/sections/{siteSectionId}/move`]: m('moveSiteSection'),
  // Spaces
  'DELETE /spaces/{spaceId}': m('deleteSpace'),
  'PATCH /spaces/{spaceId}': m('updateSpace', 'lockSpace', 'unlockSpace'),
  'POST /spaces/{spaceId}/duplicate': m('duplicateSpace'),
  'POST /spaces/{spaceId}/restore': m('restoreSpace'),
  'POST /spaces/{spaceId}/move': m('moveSpace'),
  'POST /spaces/{spaceId}/transfer': m('transferSpace'),
  [`POST ${ORG}/spaces`]: m('createSpace'),
  // Collections
  'DELETE /collections/{collectionId}': m('deleteCollection'),
  'PATCH /collections/{collectionId}': m('updateCollection'),
  'POST /collections/{collectionId}/move': m('moveCollection'),
  'POST /collections/{collectionId}/transfer': m('transferCollection'),
  [`POST ${ORG}/collections`]: m('createCollection'),
  // Organization invites
  [`POST ${ORG}/invites`]: m('inviteToOrganization'),
  [`POST ${ORG}/invites/{inviteId}`]: m('joinOrganization'),
  [`POST ${ORG}/link-invites`]: m('createLinkInvite'),
  [`DELETE ${ORG}/link-invites/{inviteId}`]: m('deleteLinkInvite'),
  [`PATCH ${ORG}/link-invites/{inviteId}`]: m('updateLinkInvite'),
  // Organization members
  [`DELETE ${ORG}/members/{userId}`]: m('removeMember'),
  [`PATCH ${ORG}/members/{userId}`]: m('updateMember'),
  [`POST ${ORG}/ping`]: m('pingOrganization'),
  [`POST ${ORG}/members/{userId}/sso`]: m('setMemberSso'),
  // Teams
  [`PUT ${ORG}/teams`]: m('createTeam'),
  [`DELETE ${ORG}/teams/{teamId}`]: m('deleteTeam'),
  [`PATCH ${ORG}/teams/{teamId}`]: m('updateTeam'),
  // Change requests (PATCH carries the status transitions)
  'POST /spaces/{spaceId}/change-requests': m('createChangeRequest'),
  [`PATCH ${CR}`]: m('updateChangeRequest', 'archiveChangeRequest', 'reopenChangeRequest', 'markChangeRequestDraft'),
  [`POST ${CR}/merge`]: m('mergeChangeRequest'),
  [`POST ${CR}/update`]: m('updateChangeRequestFromMain'),
  // Space and collection user permissions
  'POST /spaces/{spaceId}/permissions': m('grantSpacePermission'),
  'DELETE /spaces/{spaceId}/permissions/users/{userId}': m('removeSpaceUserPermission'),
  'PATCH /spaces/{spaceId}/permissions/users/{userId}': m('updateSpaceUserPermission'),
  'POST /collections/{collectionId}/permissions': m('grantCollectionPermission'),
  'DELETE /collections/{collectionId}/permissions/users/{userId}': m('removeCollectionUserPermission'),
  'PATCH /collections/{collectionId}/permissions/users/{userId}': m('updateCollectionUserPermission'),
  // Integrations
  'POST /integrations/{integrationName}': m('publishIntegration'),
  'DELETE /integrations/{integrationName}': m('unpublishIntegration'),
  // SAML
  [`POST ${ORG}/saml`]: m('createSamlProvider'),
  [`DELETE ${ORG}/saml/{samlProviderId}`]: m('deleteSamlProvider'),
  [`PATCH ${ORG}/saml/{samlProviderId}`]: m('updateSamlProvider'),
  // OpenAPI specs
  [`POST ${ORG}/openapi`]: m('createOpenApiSpec'),
  [`PUT ${ORG}/openapi/{specSlug}`]: m('updateOpenApiSpec'),
  [`DELETE ${ORG}/openapi/{specSlug}`]: m('deleteOpenApiSpec'),
  // Site redirects
  [`POST ${SITE}/redirects`]: m('createSiteRedirect'),
  [`DELETE ${SITE}/redirects/{siteRedirectId}`]: m('deleteSiteRedirect'),
  [`PATCH ${SITE}/redirects/{siteRedirectId}`]: m('updateSiteRedirect'),
  // Site share links (PATCH `active` is the state transition)
  [`POST ${SITE}/share-links`]: m('createShareLink'),
  [`DELETE ${SITE}/share-links/{shareLinkId}`]: m('deleteShareLink'),
  [`PATCH ${SITE}/share-links/{shareLinkId}`]: m('updateShareLink', 'activateShareLink', 'deactivateShareLink'),
  // Translation settings
  [`POST ${ORG}/translations`]: m('createTranslationSettings'),
  [`PUT ${ORG}/translations/{translationSettingsId}`]: m('updateTranslationSettings'),
  [`DELETE ${ORG}/translations/{translationSettingsId}`]: m('deleteTranslationSettings'),
  // Custom fonts
  [`PUT ${ORG}/fonts`]: m('createCustomFont'),
  [`POST ${ORG}/fonts/{fontId}`]: m('updateCustomFont'),
  [`DELETE ${ORG}/fonts/{fontId}`]: m('deleteCustomFont'),
  // Organization AI ask: a read-only computation (see readOnlyWrites)
  [`POST ${ORG}/ask`]: ['Organization.ask'],
  // Site operations of the changelog
  [`PATCH ${SITE}`]: m('updateSite'),
  [`POST ${SITE}/publish`]: m('publishSite'),
  [`POST ${SITE}/unpublish`]: m('unpublishSite'),
  [`PATCH ${SITE}/publishing/auth`]: m('updateSitePublishingAuth'),
};

/** The coordinates that serve an endpoint (`METHOD /path`), empty when unmapped. */
export function graphCoordinates(key: string): string[] {
  if (key in readFields) return [readFields[key]];
  return writeMutations[key] ?? [];
}
