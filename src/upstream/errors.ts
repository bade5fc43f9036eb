/** Errors the embedded REST API answers with: `{"error": {"code": <status>, "message": "…"}}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'A valid access token is required') => new HttpError(401, message);
export const forbidden = (message = 'Your role does not allow this operation') => new HttpError(403, message);
export const notFound = (what = 'Resource') => new HttpError(404, `${what} not found`);
export const conflict = (message: string) => new HttpError(409, message);

/** Runs the lookup of an id given in the body field `field`: a 404 it throws names the field. */
export function lookupField<T>(field: string, lookup: () => T): T {
  try {
    return lookup();
  } catch (e) {
    if (e instanceof HttpError && e.status === 404) throw new HttpError(404, `${field}: ${e.message}`, e.headers);
    throw e;
  }
}
