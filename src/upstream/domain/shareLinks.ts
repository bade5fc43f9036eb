/**
 * Site share links. Each link has a secret key, carried by its `urls.published` as the `shareKey`
 * query parameter; while the link is active the key opens the published share-link site (see
 * src/upstream/shareKeys.ts).
 */
import { setColumns } from '../db/columns.js';
import type { RequestContext } from '../context.js';
import type { Db } from '../db/index.js';
import { newId } from '../ids.js';
import { loadOwned, type OwnedTable } from './owned.js';
import { siteUrl, type SiteRow } from './sites.js';

export interface ShareLinkRow {
  id: string;
  site_id: string;
  name: string;
  key: string;
  active: number;
  created_at: string;
}

export const SHARE_LINKS: OwnedTable = { table: 'share_links', owner: 'site_id', what: 'Share link', orderBy: ['created_at', 'id'] };

export function toShareLink(ctx: RequestContext, site: SiteRow, row: ShareLinkRow) {
  const published = new URL(siteUrl(ctx, site));
  published.searchParams.set('shareKey', row.key);
  return {
    object: 'share-link' as const,
    id: row.id,
    createdAt: row.created_at,
    name: row.name,
    active: Boolean(row.active),
    urls: { published: published.toString() },
  };
}

const loadShareLink = (db: Db, siteId: string, shareLinkId: string) => loadOwned<ShareLinkRow>(db, SHARE_LINKS, siteId, shareLinkId);

/** An active link with a fresh key. */
export function insertShareLink(db: Db, siteId: string, name: string, now: string): ShareLinkRow {
  const id = newId();
  db.prepare('INSERT INTO share_links (id, site_id, name, key, active, created_at) VALUES (?, ?, ?, ?, 1, ?)').run(
    id,
    siteId,
    name,
    newId(32),
    now,
  );
  return loadShareLink(db, siteId, id);
}

export function updateShareLink(db: Db, row: ShareLinkRow, changes: { active?: boolean; name?: string }): ShareLinkRow {
  setColumns(db, 'share_links', ['id', row.id], changes);
  return loadShareLink(db, row.site_id, row.id);
}
