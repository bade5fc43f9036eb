/**
 * Request URLs as they may be logged: the value of every query parameter that carries a
 * credential (a share key, the PDF URL's signed token, anything named like a key, token, secret,
 * signature or password) and an invite's id in the path are replaced, so a debug log never holds
 * what opens content.
 */
const CREDENTIAL_PARAM = /key|token|secret|passw|signature|^sig$|auth|credential|session|code/i;

export const REDACTED = '[redacted]';

/**
 * What follows an `invites` or `link-invites` segment: an invite's id, which lets whoever holds it
 * join its organization (`POST /orgs/{organizationId}/invites/{inviteId}`: a link invite is shared
 * as a link holding it, as a share link holds its key). Everything after it, as sent (`/./`, `//`
 * and `\` reach the same route).
 */
const CREDENTIAL_SEGMENT = /([/\\](?:link-)?invites)[/\\].*$/s;

/** `path?query` with credential values replaced; other parameters and the path are kept as sent. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  const path = (at < 0 ? url : url.slice(0, at)).replace(CREDENTIAL_SEGMENT, `$1/${REDACTED}`);
  if (at < 0) return path;
  const params = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      return CREDENTIAL_PARAM.test(safeDecode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    });
  return `${path}?${params.join('&')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
