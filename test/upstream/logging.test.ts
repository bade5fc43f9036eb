/**
 * The request log (`--log-level debug`) never holds a credential: share keys, the PDF URL's
 * signed token and any other token-like query value are redacted; other parameters stay readable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED, redactUrl } from '../../src/upstream/redact.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
const lines: Array<{ method: string; path: string; status: number }> = [];
beforeAll(async () => {
  t = await startUpstream({ log: (line) => lines.push(line) });
});
afterAll(() => t.stop());

const logged = () => lines.map((l) => `${l.method} ${l.path} ${l.status}`).join('\n');

describe('the request log', () => {
  it('redacts share keys and PDF tokens, keeps the path and the other parameters', async () => {
    const space = (await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title: 'Logged' })).body;
    const cr = (await t.api.post(`/spaces/${space.id}/change-requests`, { subject: 'Print' })).body;
    const { url } = (await t.api.get(`/spaces/${space.id}/change-requests/${cr.id}/pdf`)).body;
    const token = new URL(url).searchParams.get('token')!;
    expect(token.length).toBeGreaterThan(20);
    expect((await fetch(url)).status).toBe(200);
    await t.api.as(undefined).get(`/spaces/${space.id}`, { shareKey: 'sk-very-secret-1' });
    await t.api.get(`/orgs/${t.world.orgId}/spaces`, { limit: 5, access_token: 'tok-secret-2', 'api-Key': 'secret-3' });
    await fetch(`${t.url}/spaces/${space.id}?%73hareKey=secret-4&share%4Bey=secret-5`);

    const log = logged();
    for (const secret of [token, 'sk-very-secret-1', 'tok-secret-2', 'secret-3', 'secret-4', 'secret-5']) expect(log).not.toContain(secret);
    expect(log).toContain(`GET /v1/spaces/${space.id}/change-requests/${cr.id}/pdf/render?token=${REDACTED} 200`);
    expect(log).toContain(`GET /v1/spaces/${space.id}?shareKey=${REDACTED} 401`);
    expect(log).toContain(`GET /v1/orgs/${t.world.orgId}/spaces?limit=5&access_token=${REDACTED}&api-Key=${REDACTED} 200`);
  });

  it("redacts an invite's id, which lets whoever holds it join the organization", async () => {
    const org = `/orgs/${t.world.orgId}`;
    const link = (await t.api.post(`${org}/link-invites`, { role: 'edit' })).body;
    await t.api.get(`${org}/link-invites/${link.id}`);
    await t.api.patch(`${org}/link-invites/${link.id}`, { role: 'read' });
    await t.api.as(t.world.users.outsider.token).post(`${org}/invites/${link.id}`);
    expect((await t.api.get(`${org}/members/${t.world.users.outsider.id}`)).body.role).toBe('read');
    for (const path of [`//invites//${link.id}`, `/invites/./${link.id}`, `/invites\\${link.id}`])
      await fetch(`${t.url}${org}${path}`, { method: 'POST', headers: { authorization: `Bearer ${t.world.users.guest.token}` } });
    await t.api.delete(`${org}/link-invites/${link.id}`);

    const log = logged();
    expect(log).not.toContain(link.id);
    expect(log).toContain(`POST /v1${org}/invites/${REDACTED} 200`);
    expect(log).toContain(`PATCH /v1${org}/link-invites/${REDACTED} 200`);
    expect(log).toContain(`POST /v1${org}/link-invites 201`);
  });

  it('leaves URLs without credentials as they are', () => {
    for (const url of ['/v1/spaces/abc', '/v1/orgs/o/members?role=admin&sort=joinedAt&order=asc', '/v1/x?flag', '/v1/x?']) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});
