/** Checks a REST response against @gitbook/api's spec/openapi.json (filled in by the conformance work). */
export function checkResponse(_method: string, _path: string, _status: number, _body: unknown): void {}
