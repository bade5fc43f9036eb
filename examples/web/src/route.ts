/** The screen in the URL's hash (`#/orgs/<id>`, `#/spaces/<id>`, `#/spaces/<id>/change-requests/<id>`), so a reload keeps it. */
import { useSyncExternalStore } from 'react';

export type Route =
  | { screen: 'organizations' }
  | { screen: 'organization'; organizationId: string }
  | { screen: 'space'; spaceId: string }
  | { screen: 'changeRequest'; spaceId: string; changeRequestId: string };

/**
 * A segment of the hash, its escapes decoded; one not a valid escape (`%E0%A4%A`, `%`) taken as
 * written: decodeURIComponent's URIError, thrown in App's render outside any boundary, left a link
 * to `#/orgs/%` a blank page.
 */
function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function parseRoute(hash: string): Route {
  const [kind, id, sub, subId] = hash.replace(/^#\/?/, '').split('/').map(decode);
  if (kind === 'orgs' && id) return { screen: 'organization', organizationId: id };
  if (kind === 'spaces' && id && sub === 'change-requests' && subId)
    return { screen: 'changeRequest', spaceId: id, changeRequestId: subId };
  if (kind === 'spaces' && id) return { screen: 'space', spaceId: id };
  return { screen: 'organizations' };
}

export const href = {
  organizations: () => '#/',
  organization: (organizationId: string) => `#/orgs/${encodeURIComponent(organizationId)}`,
  space: (spaceId: string) => `#/spaces/${encodeURIComponent(spaceId)}`,
  changeRequest: (spaceId: string, changeRequestId: string) =>
    `#/spaces/${encodeURIComponent(spaceId)}/change-requests/${encodeURIComponent(changeRequestId)}`,
};

const subscribe = (onChange: () => void) => {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
};

export function useRoute(): Route {
  return parseRoute(useSyncExternalStore(subscribe, () => window.location.hash));
}
