/**
 * Request URLs as they may be logged: the value of every query parameter that carries a
 * credential (a share key, the PDF URL's signed token, anything named like a key, token, secret,
 * signature or password) is replaced, so a debug log never holds what opens content.
 */
const CREDENTIAL_PARAM = /key|token|secret|passw|signature|^sig$|auth|credential|session|code/i;

export const REDACTED = '[redacted]';

/** `path?query` with credential values replaced; other parameters and the path are kept as sent. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const params = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      return CREDENTIAL_PARAM.test(safeDecode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    });
  return `${url.slice(0, at)}?${params.join('&')}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
