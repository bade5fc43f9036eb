/**
 * Share keys: the secret of an active site share link. A share key opens the content that the
 * link's site publishes (space get, site sections list, redirect lookup), while the site is
 * published with visibility `share-link`. An inactive link's key opens nothing.
 */
import type { Db } from './db/index.js';

const OPEN_SITE = `share_links l JOIN sites s ON s.id = l.site_id
  WHERE l.key = ? AND l.active = 1 AND s.visibility = 'share-link' AND s.published = 1`;

/** True when the key opens the site. */
export function shareKeyOpensSite(db: Db, shareKey: string, siteId: string): boolean {
  return Boolean(db.prepare(`SELECT 1 FROM ${OPEN_SITE} AND s.id = ?`).get(shareKey, siteId));
}

/** True when the key opens a site that publishes the space (as one of its site spaces). */
export function shareKeyOpensSpace(db: Db, shareKey: string, spaceId: string): boolean {
  return Boolean(
    db.prepare(`SELECT 1 FROM ${OPEN_SITE} AND s.id IN (SELECT site_id FROM site_spaces WHERE space_id = ?)`).get(shareKey, spaceId),
  );
}
