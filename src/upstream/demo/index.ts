/**
 * Demo content, created on the first start of an empty database: two organizations, users of
 * every role, collections (one nested), spaces of several visibilities with real pages, change
 * requests in every status, comments with replies and reactions, a site, teams, integrations….
 * Users, tokens and memberships are created directly (REST cannot); everything else goes
 * through the REST API itself, as a client would, over a private loopback server with no latency
 * and no rate limit (so `--latency-ms` / `--rate-limit` do not slow or break it).
 *
 * All of it happens in one transaction, and the marker row in `settings` (which also keeps the
 * tokens each start prints) is written last: a failed or interrupted creation leaves the database
 * as it was, and a database with users but no marker is never taken for the demo.
 */
import type { Role } from '../../api/roles.js';
import type { Logger } from '../../log.js';
import { addMember, createOrganization, createUser, type NewUser } from '../bootstrap.js';
import { systemClock } from '../clock.js';
import { editChangeRequestPages } from '../content/merge.js';
import { pagesOf } from '../content/revisions.js';
import type { Db } from '../db/index.js';
import { installIntegration } from '../domain/integrations.js';
import { createSite } from '../domain/sites.js';
import { insertSpace } from '../domain/spaces.js';
import { buildUpstream } from '../server.js';
import { apiGuide, designSystem, handbook, labNotes, releaseNotes } from './content.js';

export interface DemoTokens {
  organizationId: string;
  /** The demo organization admin's token. */
  admin: string;
  /** Tokens of the other demo users, by role (`guest` for the guest). */
  others: Record<string, string>;
}

/** Key of the marker row in `settings`, written last; its value is the DemoTokens JSON. */
export const DEMO_MARKER = 'demo';

const PEOPLE: Array<{ role: Role | 'guest'; displayName: string; email: string }> = [
  { role: 'admin', displayName: 'Ada Lovelace', email: 'ada@acme.example' },
  { role: 'create', displayName: 'Grace Hopper', email: 'grace@acme.example' },
  { role: 'edit', displayName: 'Alan Turing', email: 'alan@acme.example' },
  { role: 'review', displayName: 'Katherine Johnson', email: 'katherine@acme.example' },
  { role: 'comment', displayName: 'Edsger Dijkstra', email: 'edsger@acme.example' },
  { role: 'read', displayName: 'Barbara Liskov', email: 'barbara@acme.example' },
  { role: 'guest', displayName: 'Guest Contractor', email: 'contractor@partner.example' },
];

/**
 * The demo tokens: read from the marker, or created with the demo content when the database is
 * empty; null (with a log line saying why) when it holds other data. Throws when the creation
 * fails, after rolling it back.
 */
export async function ensureDemo(db: Db, log: Logger): Promise<DemoTokens | null> {
  const started = Date.now();
  // Checked and created under one write lock, so two processes starting on one file cannot both create it.
  const outcome = await inTransaction(db, async () => {
    const stored = db.prepare('SELECT value FROM settings WHERE key = ?').get(DEMO_MARKER) as { value: string } | undefined;
    if (stored) return { tokens: JSON.parse(stored.value) as DemoTokens, created: false };
    if (holdsData(db)) return { tokens: null, created: false };
    const api = buildUpstream({ db });
    try {
      const tokens = await createDemo(db, await api.start());
      await api.idle(); // background work (OpenAPI processing) lands inside the transaction
      db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(DEMO_MARKER, JSON.stringify(tokens));
      return { tokens, created: true };
    } finally {
      await api.stop();
    }
  });
  if (outcome.created) log.info(`demo content created in ${Date.now() - started} ms`);
  else if (!outcome.tokens)
    log.info('The database holds data that is not the demo (no demo marker): no demo content is added and no demo token is printed');
  return outcome.tokens;
}

const holdsData = (db: Db) =>
  (db.prepare('SELECT EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM organizations) AS found').get() as { found: number }).found ===
  1;

/** Runs `work` in one SQLite transaction (the routes' own transactions become savepoints); rolls back on failure. */
async function inTransaction<T>(db: Db, work: () => Promise<T>): Promise<T> {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = await work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw new Error(`the demo content could not be created (nothing was kept): ${(error as Error).message}`, { cause: error });
  }
}

/** A tiny REST client for the demo: it speaks to the upstream over HTTP like any client. */
function client(baseUrl: string, token: string) {
  // `any` by default: the demo reads one or two fields of objects it has just written; typing each
  // answer would restate the REST shapes the conformance tests already check.
  return async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`demo: ${method} ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}

async function createDemo(db: Db, baseUrl: string): Promise<DemoTokens> {
  // Strictly increasing timestamps, so what the demo creates lists in creation order (Acme first).
  let last = 0;
  const clock = { now: () => new Date((last = Math.max(systemClock.now().getTime(), last + 1))) };
  const now = () => clock.now().toISOString();
  const acme = createOrganization(db, clock, { title: 'Acme Docs', hostname: 'acme-docs', emailDomains: ['acme.example'] });
  const globex = createOrganization(db, clock, { title: 'Globex Labs', hostname: 'globex-labs' });
  const users: Record<string, NewUser> = {};
  for (const p of PEOPLE) {
    users[p.role] = createUser(db, clock, { displayName: p.displayName, email: p.email });
    addMember(db, clock, acme, users[p.role].id, p.role === 'guest' ? null : p.role, { lastSeenAt: now() });
  }
  addMember(db, clock, globex, users.admin.id, 'admin', { lastSeenAt: now() });
  addMember(db, clock, globex, users.edit.id, 'edit');

  const as = (role: string) => client(baseUrl, users[role].token);
  const admin = as('admin');

  // Collections, one nested.
  const product = await admin('POST', `/orgs/${acme}/collections`, { title: 'Product' });
  await admin('PATCH', `/collections/${product.id}`, { description: 'Public product documentation' });
  const apis = await admin('POST', `/orgs/${acme}/collections`, { title: 'APIs', parent: product.id });
  const company = await admin('POST', `/orgs/${acme}/collections`, { title: 'Company' });

  // Spaces with real pages, of several visibilities.
  const guide = insertSpace(db, now(), {
    organizationId: acme,
    title: 'API Guide',
    emoji: '📘',
    visibility: 'public',
    defaultLevel: 'edit',
    pages: apiGuide,
  });
  const book = insertSpace(db, now(), {
    organizationId: acme,
    title: 'Handbook',
    emoji: '📗',
    visibility: 'private',
    defaultLevel: 'edit',
    pages: handbook,
  });
  const design = insertSpace(db, now(), {
    organizationId: acme,
    title: 'Design System',
    emoji: '🎨',
    visibility: 'unlisted',
    defaultLevel: 'comment',
    pages: designSystem,
  });
  insertSpace(db, now(), { organizationId: globex, title: 'Lab Notebook', emoji: '🧪', pages: labNotes });
  await admin('POST', `/spaces/${guide.id}/move`, { parent: apis.id });
  await admin('POST', `/spaces/${design.id}/move`, { parent: product.id });
  await admin('POST', `/spaces/${book.id}/move`, { parent: company.id });
  // Created after the moves, so the organization's space list starts with the API Guide.
  const notes = insertSpace(db, now(), {
    organizationId: acme,
    title: 'Release Notes',
    emoji: '📣',
    visibility: 'share-link',
    pages: releaseNotes,
  });
  await admin('POST', `/orgs/${acme}/spaces`, { title: 'Scratchpad', emoji: '📝' });

  // The guest sees the handbook only, through an explicit permission.
  await admin('POST', `/spaces/${book.id}/permissions`, { role: 'comment', users: [users.guest.id] });

  // Change requests in every status, with content, comments, replies and reactions.
  const editor = as('edit');
  // New change requests start as drafts; most of the demo's are opened.
  const cr = async (subject: string, role = 'edit', status = 'open') => {
    const created = await as(role)('POST', `/spaces/${guide.id}/change-requests`, { subject });
    return status === 'draft' ? created : as(role)('PATCH', `/spaces/${guide.id}/change-requests/${created.id}`, { status });
  };
  const openCr = await cr('Document webhooks');
  editChangeRequestPages(
    db,
    openCr.id,
    users.edit.id,
    [{ title: 'Webhooks', markdown: '# Webhooks\n\nSubscribe to order events with a webhook URL. Deliveries are retried for 24 hours.\n' }],
    now(),
  );
  await cr('Rework pagination docs', 'create', 'draft');
  await cr('Old SDK section', 'edit', 'archived');
  const mergedCr = await cr('Fix rate limit numbers');
  const rateLimits = pagesOf(db, guide.revision_id).find((p) => p.title === 'Rate limits')!;
  editChangeRequestPages(
    db,
    mergedCr.id,
    users.edit.id,
    [{ page_id: rateLimits.page_id, markdown: rateLimits.markdown.replace('600 requests per minute', '1200 requests per minute') }],
    now(),
  );
  await admin('POST', `/spaces/${guide.id}/change-requests/${mergedCr.id}/merge`);
  const handbookCr = await admin('POST', `/spaces/${book.id}/change-requests`, { subject: 'Add remote work policy' });
  await admin('PATCH', `/spaces/${book.id}/change-requests/${handbookCr.id}`, { status: 'open' });

  const comments = `/spaces/${guide.id}/change-requests/${openCr.id}/comments`;
  const c1 = await as('review')('POST', comments, { body: { markdown: 'Should we list the event types here?' } });
  await editor('POST', `${comments}/${c1.id}/replies`, { body: { markdown: 'Yes, adding a table.' } });
  await as('review')('POST', `${comments}/${c1.id}/replies`, { body: { markdown: 'Great, thanks!' } });
  await as('comment')('PUT', `${comments}/${c1.id}`, { addedReactions: ['👍'] });
  await admin('PUT', `${comments}/${c1.id}`, { addedReactions: ['👍', '🎉'] });
  const c2 = await as('comment')('POST', comments, { body: { markdown: 'Typo: "recieve" in the second paragraph.' } });
  await editor('PUT', `${comments}/${c2.id}`, { resolved: true });
  await admin('POST', `/spaces/${book.id}/change-requests/${handbookCr.id}/comments`, {
    body: { markdown: 'Guests can comment on the handbook too.' },
  });

  // Teams.
  await admin('PUT', `/orgs/${acme}/teams`, { title: 'Docs writers', members: [users.edit.id, users.create.id] });
  await admin('PUT', `/orgs/${acme}/teams`, { title: 'Reviewers', members: [users.review.id] });

  // A published site with sections, a redirect and a share link.
  const site = createSite(db, now(), {
    organizationId: acme,
    title: 'Acme Developer Portal',
    published: true,
    spaceIds: [guide.id, design.id],
  });
  const sections = await admin('GET', `/orgs/${acme}/sites/${site.id}/sections`);
  await admin('POST', `/orgs/${acme}/sites/${site.id}/redirects`, {
    source: '/docs/old-api',
    destination: { kind: 'site-section', siteSectionId: sections.items[0].id },
  });
  await admin('POST', `/orgs/${acme}/sites/${site.id}/share-links`, { name: 'Partners preview' });
  createSite(db, now(), {
    organizationId: acme,
    title: 'Release notes (share link)',
    visibility: 'share-link',
    published: true,
    spaceIds: [notes.id],
  });

  // Integrations, an OpenAPI spec, translations and a font.
  await admin('POST', `/integrations/acme-slack`, {
    title: 'Acme Slack',
    description: 'Posts change request updates to Slack channels.',
    scopes: ['space:content:read'],
    categories: ['collaboration'],
    visibility: 'public',
    script: 'export default {}',
    organization: acme,
    secrets: { SLACK_SIGNING_SECRET: 'demo-secret' },
  });
  await admin('POST', `/integrations/acme-analytics`, {
    title: 'Acme Analytics',
    description: 'Page view analytics for published sites.',
    scopes: ['site:views:read'],
    categories: ['analytics'],
    visibility: 'public',
    target: 'site',
    script: 'export default {}',
    organization: acme,
  });
  installIntegration(db, clock, { integrationName: 'acme-slack', organizationId: acme, externalIds: ['T024BE7LD'] });
  await admin('POST', `/orgs/${acme}/openapi`, {
    slug: 'orders-api',
    source: {
      text: JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'Orders API', version: '2.0.0' },
        paths: { '/orders': { get: { summary: 'List orders' } } },
      }),
    },
  });
  await admin('POST', `/orgs/${acme}/translations`, { title: 'French and German docs', languages: ['fr', 'de'] });
  await admin('PUT', `/orgs/${acme}/fonts`, {
    fontFamily: 'Acme Sans',
    fontFaces: [
      { weight: 400, storageKey: 'fonts/acme-sans-regular.woff2' },
      { weight: 700, storageKey: 'fonts/acme-sans-bold.woff2' },
    ],
  });
  await admin('POST', `/orgs/${acme}/link-invites`, { role: 'read' });

  const others: Record<string, string> = {};
  for (const p of PEOPLE) if (p.role !== 'admin') others[p.role] = users[p.role].token;
  return { organizationId: acme, admin: users.admin.token, others };
}
