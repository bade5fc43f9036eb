import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse, uncheckedOperations } from '../helpers/conformance.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

const organization = () => ({
  object: 'organization',
  id: 'org1',
  title: 'Acme',
  createdAt: '2024-01-02T03:04:05.006Z',
  emailDomains: ['acme.test'],
  hostname: 'acme',
  type: 'business',
  useCase: 'internalDocs',
  sso: false,
  ai: true,
  inviteLinks: true,
  plan: 'free_2024',
  mergeRules: { type: 'none' },
  trial: { status: 'notapplicable' },
  urls: { location: 'http://127.0.0.1:1234/v1/orgs/org1', app: 'http://127.0.0.1:1234/o/org1' },
  permissions: { admin: true, createContent: true },
});

const getOrg =
  (body: unknown, status = 200) =>
  () =>
    checkResponse('GET', '/orgs/org1', status, body);

describe('checkResponse on hand-made bodies', () => {
  it('accepts a valid organization', () => {
    expect(getOrg(organization())).not.toThrow();
  });

  it('rejects a wrong type, naming the operation and the field', () => {
    expect(getOrg({ ...organization(), createdAt: 5 })).toThrow(
      /GET \/orgs\/org1 -> 200 \(operation getOrganizationById\)[\s\S]*\/createdAt/,
    );
    expect(getOrg({ ...organization(), sso: 'yes' })).toThrow(/\/sso must be boolean/);
  });

  it('rejects a value outside an enum', () => {
    expect(getOrg({ ...organization(), type: 'galactic' })).toThrow(/\/type must be equal to one of the allowed values/);
  });

  it('rejects a bad format', () => {
    const body = organization();
    body.urls.location = 'not a url';
    expect(getOrg(body)).toThrow(/\/urls\/location must match format "uri"/);
    expect(getOrg({ ...organization(), createdAt: 'yesterday' })).toThrow(/\/createdAt must match format "date-time"/);
  });

  it('shows a snippet of the body in the error', () => {
    expect(getOrg({ ...organization(), createdAt: 5 })).toThrow(/body: \{"object":"organization"/);
  });

  it('does not require fields (required is relaxed)', () => {
    const { title: _title, urls: _urls, ...rest } = organization();
    expect(getOrg(rest)).not.toThrow();
    expect(getOrg({ object: 'organization' })).not.toThrow();
  });

  it('checks list envelopes and their items', () => {
    const list = (items: unknown[]) => () => checkResponse('GET', '/orgs?limit=1', 200, { items, count: 1 });
    expect(list([organization()])).not.toThrow();
    expect(list([{ ...organization(), createdAt: 5 }])).toThrow(/\/items\/0\/createdAt/);
  });

  it('skips paths the spec does not describe, and lists them', () => {
    expect(() => checkResponse('GET', '/no/such/thing', 200, { anything: 1 })).not.toThrow();
    expect(() => checkResponse('POST', '/user', 200, { anything: 1 })).not.toThrow();
    expect(uncheckedOperations()).toEqual(expect.arrayContaining(['GET /no/such/thing', 'POST /user']));
  });

  it('prefers the template with the most literal segments', () => {
    const bad = { createdAt: 5 };
    const path = '/orgs/o/openapi/s/versions/latest';
    expect(() => checkResponse('GET', path, 200, bad)).toThrow(/operation getLatestOpenAPISpecVersion/);
    expect(() => checkResponse('GET', '/orgs/o/openapi/s/versions/v1', 200, bad)).toThrow(/operation getOpenAPISpecVersionById/);
  });

  it('lets a {…Path} parameter take the rest of the path', () => {
    expect(() => checkResponse('GET', '/spaces/s/content/path/guides/intro', 200, { id: 5 })).toThrow(/operation getPageByPath/);
  });

  it('accepts a value that matches several oneOf branches (oneOf is relaxed to anyOf)', () => {
    // Without `required`, a page document and a page group both accept {title}; oneOf would reject it.
    expect(() => checkResponse('GET', '/spaces/s/content/path/intro', 200, { title: 'Intro' })).not.toThrow();
  });

  it('rejects a success status the operation does not document', () => {
    expect(() => checkResponse('POST', '/orgs/o/sites/s/share-links', 200, {})).toThrow(/does not document status 200/);
  });

  it('checks error bodies against our error shape', () => {
    expect(getOrg({ error: { code: 404, message: 'x' } }, 404)).not.toThrow();
    expect(getOrg({ error: { code: 400, message: 'x' } }, 404)).toThrow(/\/error\/code must be equal to constant/);
    expect(getOrg({ error: 'not found' }, 404)).toThrow(/\/error must be object/);
    expect(getOrg({ message: 'x' }, 404)).toThrow(/must have required property 'error'/);
    expect(getOrg({ error: { code: 404 } }, 404)).toThrow(/must have required property 'message'/);
    expect(() => checkResponse('GET', '/no/such/thing', 404, { oops: true })).toThrow(/must have required property 'error'/);
  });

  it('checks nothing for 204 or an empty body', () => {
    expect(() => checkResponse('DELETE', '/orgs/o/sites/s/share-links/l', 204, undefined)).not.toThrow();
    expect(getOrg(undefined)).not.toThrow();
  });
});

describe('responses of the running upstream', () => {
  let t: TestUpstream;
  beforeAll(async () => {
    t = await startUpstream();
  });
  afterAll(() => t.stop());

  it('GET /orgs and GET /orgs/{id} pass the check (the client runs it on every JSON response)', async () => {
    const list = await t.api.get('/orgs');
    expect(list.status).toBe(200);
    const one = await t.api.get(`/orgs/${t.world.orgId}`);
    expect(one.status).toBe(200);
    expect(() => checkResponse('GET', `/orgs/${t.world.orgId}`, 200, one.body)).not.toThrow();
    expect(() => checkResponse('GET', `/orgs/${t.world.orgId}`, 200, { ...one.body, createdAt: 5 })).toThrow(/createdAt/);
    expect((await t.api.get('/orgs/unknown')).status).toBe(404);
  });
});
