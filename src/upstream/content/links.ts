/**
 * Links found in the markdown of a revision's pages, with their status:
 * - `ok`: a link to a page of the same revision that exists (by relative path, e.g.
 *   `getting-started`, `../guides/setup.md`, `/reference/errors`, or by page id: `page:<pageId>`),
 *   or an external link (any URL with a scheme: `https://…`, `mailto:…`);
 * - `broken`: a page link whose target is missing in the revision;
 * - `in-app`: a link into the application: a path under `/app/` on this origin, relative
 *   (`/app/s/…`) or absolute (`http://host:port/app/…`).
 * Images (`![…](…)`), same-page anchors (`#…`) and code are not links.
 *
 * One item per distinct link of a page, shaped after the official ContentRef:
 * `{status, url, target: {kind: 'page', page} | {kind: 'url', url}, source: {kind: 'page', page}}`.
 */
import type { Db } from '../db/index.js';
import { pagesOf, type PageRow } from './revisions.js';

export type LinkStatus = 'ok' | 'broken' | 'in-app';

export type ContentRef = { kind: 'page'; page: string } | { kind: 'url'; url: string };

export interface RevisionLink {
  status: LinkStatus;
  /** The link as written in the markdown. */
  url: string;
  target: ContentRef;
  /** The page the link appears in. */
  source: { kind: 'page'; page: string };
}

/** Prefix of links to a page by id. */
export const PAGE_LINK_SCHEME = 'page:';
/** Path prefix of in-app links. */
export const APP_PATH = '/app/';

const LINK = /(!?)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^()\s<>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)|<((?:https?|mailto):[^<>\s]+)>/g;
const FENCED = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;
const INLINE_CODE = /`[^`\n]*`/g;

/** The link targets of a markdown text, in order, without duplicates. */
export function extractLinks(markdown: string): string[] {
  const text = markdown.replace(FENCED, '').replace(INLINE_CODE, '');
  const out = new Set<string>();
  for (const m of text.matchAll(LINK)) {
    if (m[1] === '!') continue;
    const href = m[2] ?? m[3];
    if (href && !href.startsWith('#')) out.add(href);
  }
  return [...out];
}

/** `a/b` + `../c.md` → `a/c`; README pages and the `.md` suffix resolve to the page path. */
function joinPath(dir: string, ref: string): string {
  const parts = ref.startsWith('/') ? [] : dir.split('/').filter(Boolean);
  for (const seg of ref.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  const last = parts[parts.length - 1];
  if (last && /^readme\.md$/i.test(last)) parts.pop();
  else if (last?.endsWith('.md')) parts[parts.length - 1] = last.slice(0, -3);
  return parts.join('/');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Resolves one link written in page `source` against the revision's pages. */
export function resolveLink(href: string, source: PageRow, pages: PageRow[], origin: string): RevisionLink {
  const base = { url: href, source: { kind: 'page' as const, page: source.page_id } };
  if (href.startsWith(PAGE_LINK_SCHEME)) {
    const id = href.slice(PAGE_LINK_SCHEME.length);
    const found = pages.some((p) => p.page_id === id);
    return { ...base, status: found ? 'ok' : 'broken', target: { kind: 'page', page: id } };
  }
  const app = href.startsWith(origin) ? href.slice(origin.length) : href;
  if (app.startsWith(APP_PATH) || app === APP_PATH.slice(0, -1))
    return { ...base, status: 'in-app', target: { kind: 'url', url: origin + app } };
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return { ...base, status: 'ok', target: { kind: 'url', url: href } };
  const ref = safeDecode(href.replace(/[?#].*$/, ''));
  const dir = source.path.split('/').slice(0, -1).join('/');
  const candidates = [joinPath(dir, ref), joinPath(source.path, ref)];
  const page = candidates.map((path) => pages.find((p) => p.path === path)).find(Boolean);
  return page
    ? { ...base, status: 'ok', target: { kind: 'page', page: page.page_id } }
    : { ...base, status: 'broken', target: { kind: 'url', url: href } };
}

/** Every link of a revision, page by page, in document order. */
export function linksOf(db: Db, revisionId: string, origin: string): RevisionLink[] {
  const pages = pagesOf(db, revisionId);
  return pages.flatMap((page) => extractLinks(page.markdown).map((href) => resolveLink(href, page, pages, origin)));
}

/** Counts of the links list: all links of the revision, its broken ones, and broken ones in open change requests. */
export function linkStats(db: Db, revisionId: string, spaceId: string, origin: string) {
  const links = linksOf(db, revisionId, origin);
  const openRevisions = db.prepare(`SELECT revision_id FROM change_requests WHERE space_id = ? AND status = 'open'`).all(spaceId) as Array<{
    revision_id: string;
  }>;
  const brokenIn = (list: RevisionLink[]) => list.filter((l) => l.status === 'broken').length;
  return {
    links,
    stats: {
      total: links.length,
      broken: {
        total: brokenIn(links),
        changeRequest: openRevisions.reduce((n, cr) => n + brokenIn(linksOf(db, cr.revision_id, origin)), 0),
      },
    },
  };
}
