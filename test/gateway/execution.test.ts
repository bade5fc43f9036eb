/**
 * What an operation's execution answers, over the small-POST path (lib/plainPost.ts) and over
 * Yoga's (GET): a variable that does not coerce is refused with HTTP 400 (as Yoga's executor marks
 * it); a field's error leaves its siblings; `@defer` arrives in parts.
 */
import { describe, expect, it } from 'vitest';
import { httpStack } from '../helpers/httpStack.js';

const stack = httpStack();
const token = () => `Bearer ${stack.t.world.users.admin.token}`;
const QUERY = 'query($org: String!) { organization(organizationId: $org) { title } missing: space(spaceId: "no-such-space") { title } }';
const REFUSED = {
  errors: [
    {
      message: 'Variable "$org" got invalid value 5; String cannot represent a non string value: 5',
      locations: [{ line: 1, column: 7 }],
      extensions: { code: 'BAD_USER_INPUT' },
    },
  ],
};

describe('the executor of an operation', () => {
  it('answers a field error beside the data of its siblings', async () => {
    const { status, result } = await stack.post({ query: QUERY, variables: { org: stack.t.world.orgId } }, token());
    expect(status).toBe(200);
    expect(result.data).toEqual({ organization: { title: 'Acme' }, missing: null });
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['missing'], 'NOT_FOUND']]);
  });

  it('refuses a variable that does not coerce with 400, over a small POST and over GET', async () => {
    expect(await stack.post({ query: QUERY, variables: { org: 5 } }, token())).toEqual({ status: 400, result: REFUSED });
    const url = `${stack.url}?query=${encodeURIComponent(QUERY)}&variables=${encodeURIComponent('{"org":5}')}`;
    const res = await fetch(url, { headers: { authorization: token(), accept: 'application/json' } });
    expect({ status: res.status, result: await res.json() }).toEqual({ status: 400, result: REFUSED });
  });

  it('delivers @defer in parts', async () => {
    const res = await fetch(stack.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed', authorization: token() },
      body: JSON.stringify({
        query: 'query($org: String!) { organization(organizationId: $org) { id ... @defer { title } } }',
        variables: { org: stack.t.world.orgId },
      }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    // The first part without the deferred title, a later one with it.
    expect(text.indexOf('"hasNext":true')).toBeGreaterThan(-1);
    expect(text.indexOf('"title":"Acme"')).toBeGreaterThan(text.indexOf('"hasNext":true'));
  });
});
