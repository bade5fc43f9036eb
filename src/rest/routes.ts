/**
 * Maps a concrete REST path (`/spaces/abc123/change-requests/7`) onto its template
 * (`/spaces/{spaceId}/change-requests/{changeRequestId}`), for metric labels and span attributes:
 * ids and names never appear in either. A path no template matches is `other`.
 */
import { ROUTE_TEMPLATES } from './routeTemplates.js';

/** The label of a path that matches no known template. */
export const OTHER_ROUTE = 'other';

interface Node {
  fixed: Map<string, Node>;
  param?: Node;
  template?: string;
}

const node = (): Node => ({ fixed: new Map() });

function buildTree(templates: readonly string[]): Node {
  const root = node();
  for (const template of templates) {
    let at = root;
    for (const segment of template.split('/').slice(1)) {
      if (segment.startsWith('{')) at = at.param ??= node();
      else at = at.fixed.get(segment) ?? (at.fixed.set(segment, node()), at.fixed.get(segment)!);
    }
    at.template = template;
  }
  return root;
}

/**
 * The template of `path` from the segment at `start` on (just after a "/"), read in place (no
 * arrays per call). Fixed segments win over parameters (`/orgs/{organizationId}/sites` before
 * `/orgs/{organizationId}/{x}`), with backtracking; an empty segment matches nothing.
 */
function find(at: Node, path: string, start: number): string | undefined {
  const slash = path.indexOf('/', start);
  const end = slash < 0 ? path.length : slash;
  if (end === start) return undefined;
  const fixed = at.fixed.get(path.slice(start, end));
  return (fixed && rest(fixed, path, slash)) || (at.param && rest(at.param, path, slash));
}

/** What follows a matched segment: the end of the path (the node's template), or the next segment. */
const rest = (at: Node, path: string, slash: number) => (slash < 0 ? at.template : find(at, path, slash + 1));

/** A matcher over `templates` (default: every endpoint of the REST API). */
export function routeMatcher(templates: readonly string[] = ROUTE_TEMPLATES): (path: string) => string {
  const root = buildTree(templates);
  return (path) => {
    const query = path.indexOf('?');
    const bare = query < 0 ? path : path.slice(0, query);
    return (bare.startsWith('/') && find(root, bare, 1)) || OTHER_ROUTE;
  };
}

/** The template of a REST path below the base URL (query string ignored), or `other`. */
export const routeTemplate = routeMatcher();
