/**
 * Enums, limits and body rules of the seed, declared once. The embedded upstream validates
 * requests with them; the gateway validates mutation inputs with them before any REST call.
 */
import { ROLES } from './roles.js';
import { acrossFields, required as req, rule, type Fields, type Rule } from './validate.js';

export const LIST_LIMIT_MAX = 1000;
export const DEFAULT_PAGE_SIZE = 50;
export const SPACE_RESTORE_DAYS = 7;

export const SPACE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
export const EDIT_MODES = ['live', 'locked'] as const;
export const CONTENT_FORMATS = ['document', 'markdown'] as const;
export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;
export const CHANGE_REQUEST_SETTABLE_STATUSES = ['draft', 'open', 'archived'] as const;
export const COMMENT_STATUSES = ['all', 'open', 'resolved'] as const;
export const ORDERS = ['asc', 'desc'] as const;
export const LINK_STATUSES = ['ok', 'broken', 'in-app'] as const;
export const MEMBER_SORTS = ['joinedAt', 'lastSeenAt'] as const;
export const OPENAPI_PROCESSING_STATES = ['pending', 'progress', 'complete'] as const;
export const OPENAPI_ERROR_CODES = ['FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'] as const;
export const INTEGRATION_TARGETS = ['all', 'site', 'space', 'organization'] as const;
export const INTEGRATION_VISIBILITIES = ['public', 'private', 'unlisted'] as const;
export const INTEGRATION_CATEGORIES = ['analytics', 'collaboration', 'content', 'gitsync', 'marketing', 'visitor-auth', 'other'] as const;

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const REDIRECT_SOURCE_PATTERN = /^\/[a-zA-Z0-9-_./]+[a-zA-Z0-9-_.]$/;
export const INTEGRATION_NAME_PATTERN = /^[a-zA-Z0-9-_.]+$/;
export const SUBDOMAIN_PATTERN = /^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/;

type StringRule = Extract<Rule, { kind: 'string' }>;
const str = (max?: number, min?: number, extra: Partial<StringRule> = {}): StringRule => ({
  kind: 'string',
  ...(min !== undefined ? { min } : {}),
  ...(max !== undefined ? { max } : {}),
  ...extra,
});
const enumOf = <const V extends readonly string[], N extends boolean = false>(values: V, nullable?: N) =>
  rule({ kind: 'enum', values, nullable: (nullable ?? false) as N });
const bool = rule({ kind: 'boolean' });
const strings = (max?: number) => rule({ kind: 'array', of: { kind: 'string' }, ...(max !== undefined ? { max } : {}) });

export const role = enumOf(ROLES);
export const roleOrNull = enumOf(ROLES, true);

/** Limits of single fields, named after the seed's Limits table. */
export const limits = {
  spaceTitle: str(50),
  emoji: str(50),
  collectionTitle: str(50),
  collectionDescription: str(100),
  changeRequestSubject: str(100),
  sectionGroupTitle: str(100, 1),
  iconName: str(50),
  siteSectionTitle: str(128, 2),
  siteSectionCreateTitle: str(64),
  siteSectionDescription: str(256),
  siteSectionPath: str(100, 1),
  siteSectionCondition: str(1024, 1),
  redirectSource: str(512, undefined, { pattern: REDIRECT_SOURCE_PATTERN }),
  shareLinkName: str(50),
  teamTitle: str(64, 1),
  samlLabel: str(30, 1),
  samlEntityID: str(1024),
  samlCertificate: str(10000),
  samlSsoURL: str(2048, undefined, { format: 'uri' }),
  subdomain: str(32, 3, { pattern: SUBDOMAIN_PATTERN }),
  openApiSlug: str(100, 1, { pattern: SLUG_PATTERN }),
  openApiSourceURL: str(2048, undefined, { format: 'uri' }),
  translationTitle: str(100, 1),
  fontFamily: str(50, 1),
  integrationName: str(100, undefined, { pattern: INTEGRATION_NAME_PATTERN }),
  integrationTitle: str(30, 2),
  integrationDescription: str(100),
  integrationSummary: str(2048),
  blockDomain: str(100, undefined, { pattern: INTEGRATION_NAME_PATTERN }),
  previousQueries: strings(10),
} satisfies Record<string, Rule>;

const contentBody = rule({ kind: 'object', fields: { markdown: req({ kind: 'string' }) }, open: true });
/** A sibling in the content tree: `{type: space, space}` or `{type: collection, collection}` (ContentPosition). */
const contentPointer = rule({
  kind: 'object',
  fields: { type: req(enumOf(['space', 'collection'])), space: str(), collection: str() },
  refine: (p: { type: 'space' | 'collection'; space?: string; collection?: string }) => {
    if (p[p.type] === undefined) return `must give \`${p.type}\` for type ${p.type}`;
    const other = p.type === 'space' ? 'collection' : 'space';
    return p[other] === undefined ? undefined : `must not give \`${other}\` for type ${p.type}`;
  },
});
/** Where a moved space or collection goes: before or after a sibling (not both); default the end. */
const contentPosition = rule({
  kind: 'object',
  fields: { before: contentPointer, after: contentPointer },
  refine: (p: { before?: unknown; after?: unknown }) =>
    p.before !== undefined && p.after !== undefined ? 'must give before or after, not both' : undefined,
});
/** Ids of users or teams to grant a role to: at least one when given. */
const principalIds = rule({ kind: 'array', of: { kind: 'string', min: 1 }, min: 1 });

/** Most reactions one PUT may add or remove, and most different emoji one comment or reply holds. */
export const REACTIONS_PER_REQUEST_MAX = 20;
export const REACTION_EMOJI_PER_POST_MAX = 20;
/** One emoji (OpenAPI `Emoji`, format `emoji`): an RGI emoji sequence or a pictograph. Built at run
 * time: the `v` flag (sets of strings) is newer than the compile target. */
const EMOJI = new RegExp('^(?:\\p{RGI_Emoji}|\\p{Extended_Pictographic}\\uFE0F?)$', 'v');
const emoji = str(50, 1, { refine: (value: string) => (EMOJI.test(value) ? undefined : 'must be a single emoji') });
/** Emoji reactions added to / removed from a comment or a reply (each one emoji of 1 to 50 characters). */
const reactions = rule({ kind: 'array', of: emoji, max: REACTIONS_PER_REQUEST_MAX });
/** What PUT changes on a comment and on a reply. */
const commentEdit = { body: contentBody, addedReactions: reactions, removedReactions: reactions } satisfies Fields;

/** Request bodies of the seed's writes. Keys: `<resource>.<operation>`. */
export const bodies = {
  'space.create': { title: limits.spaceTitle, emoji: limits.emoji, private: bool, parent: str() },
  'space.update': {
    editMode: enumOf(EDIT_MODES),
    title: limits.spaceTitle,
    defaultLevel: role,
    emoji: limits.emoji,
  },
  'space.move': { parent: { ...str(), nullable: true }, position: contentPosition },
  'space.transfer': { organization: req(str()) },
  'collection.create': { title: limits.collectionTitle, parent: str() },
  'collection.update': {
    title: limits.collectionTitle,
    description: limits.collectionDescription,
    defaultLevel: role,
  },
  'collection.move': { parent: { ...str(), nullable: true }, position: contentPosition },
  'collection.transfer': { organization: req(str()) },
  'changeRequest.create': { subject: limits.changeRequestSubject },
  'changeRequest.update': { subject: limits.changeRequestSubject, status: enumOf(CHANGE_REQUEST_SETTABLE_STATUSES) },
  'comment.create': { node: str(), page: str(), body: req(contentBody) },
  'comment.update': { resolved: bool, ...commentEdit },
  'reply.create': { body: req(contentBody) },
  /** "Same as PUT comment" (seed and official UpdateCommentSchema): `resolved` resolves or reopens the reply's comment. */
  'reply.update': { resolved: bool, ...commentEdit },
  /** InviteUsersAndTeams: `role` and at least one of `teams`, `users` (checked by the route). */
  'permission.invite': acrossFields({ role: req(role), teams: principalIds, users: principalIds }, (b) =>
    b.users === undefined && b.teams === undefined ? ['users', 'users or teams is required'] : undefined,
  ),
  'permission.update': { role: roleOrNull },
} satisfies Record<string, Fields>;

export type BodyName = keyof typeof bodies;
