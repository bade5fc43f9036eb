/**
 * Who the page calls the graph as. A token typed in the header is kept in this tab's
 * sessionStorage; otherwise the app server's `/session.json` names the demo admin's token, which it
 * gives only to a page opened on this machine (loopback host, not cross-site, not proxied).
 */
const KEY = 'docs-graph.token';

export function storedToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeToken(token: string | null): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}

export async function demoToken(): Promise<string | null> {
  const response = await fetch('/session.json', { headers: { accept: 'application/json' } });
  if (!response.ok) return null;
  return ((await response.json()) as { token?: string | null }).token ?? null;
}
