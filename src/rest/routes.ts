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

/** Fixed segments win over parameters (`/orgs/{organizationId}/sites` before `/orgs/{organizationId}/{x}`), with backtracking. */
function find(at: Node, segments: string[], i: number): string | undefined {
  if (i === segments.length) return at.template;
  const segment = segments[i];
  if (segment === '') return undefined;
  const fixed = at.fixed.get(segment);
  return (fixed && find(fixed, segments, i + 1)) || (at.param && find(at.param, segments, i + 1));
}

/** A matcher over `templates` (default: every endpoint of the REST API). */
export function routeMatcher(templates: readonly string[] = ROUTE_TEMPLATES): (path: string) => string {
  const root = buildTree(templates);
  return (path) => {
    const bare = path.split('?', 1)[0];
    return (bare.startsWith('/') && find(root, bare.split('/'), 1)) || OTHER_ROUTE;
  };
}

/** The template of a REST path below the base URL (query string ignored), or `other`. */
export const routeTemplate = routeMatcher();
