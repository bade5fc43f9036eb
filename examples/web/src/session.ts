/**
 * Who the page calls the graph as. A token typed in the header is kept in this tab's
 * sessionStorage; otherwise the app server's `/session.json` names the demo admin's token, which it
 * gives only to a page opened on this machine (loopback host, not cross-site, not proxied).
 */
const KEY = 'docs-graph.token';

/**
 * This tab's sessionStorage, or null where the browser denies it (site data blocked, a sandboxed
 * frame): its getter throws a SecurityError, which App's first render threw outside any error
 * boundary, a blank page. Without it a typed token lasts as long as the page.
 */
function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function storedToken(): string | null {
  return storage()?.getItem(KEY) ?? null;
}

export function storeToken(token: string | null): void {
  if (token) storage()?.setItem(KEY, token);
  else storage()?.removeItem(KEY);
}

export async function demoToken(): Promise<string | null> {
  const response = await fetch('/session.json', { headers: { accept: 'application/json' } });
  if (!response.ok) return null;
  return ((await response.json()) as { token?: string | null }).token ?? null;
}
