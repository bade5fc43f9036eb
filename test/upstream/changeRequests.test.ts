import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDocument, PDFName, type PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editChangeRequestPages, type PageEdit } from '../../src/upstream/content/merge.js';
import { pagesOf } from '../../src/upstream/content/revisions.js';
import { fixtures } from '../helpers/fixtures.js';
import type { WorldUser } from '../helpers/world.js';
import { startUpstream, type RestClient, type TestUpstream } from '../helpers/upstream.js';

let t: TestUpstream;
let as: Record<WorldUser, RestClient>;
beforeAll(async () => {
  t = await startUpstream();
  as = clients();
});
afterAll(() => t.stop());

/** A space where each acme member has their organization role (defaultLevel admin). */
async function newSpace(title = 'Docs') {
  const created = await t.api.post(`/orgs/${t.world.orgId}/spaces`, { title });
  expect(created.status).toBe(201);
  const space = await t.api.patch(`/spaces/${created.body.id}`, { defaultLevel: 'admin' });
  expect(space.status).toBe(200);
  return space.body as { id: string; revision: string };
}

const { now, clients } = fixtures(() => t);
const edit = (crId: string, edits: PageEdit[], userId = t.world.users.edit.id) =>
  editChangeRequestPages(t.upstream.db, crId, userId, edits, now());
const spaceOf = async (spaceId: string) => (await t.api.get(`/spaces/${spaceId}`)).body;
const contentOf = (revisionId: string) => pagesOf(t.upstream.db, revisionId).map((p) => `${p.title}: ${p.markdown}`);

async function newChangeRequest(spaceId: string, subject?: string, client = as.edit) {
  const res = await client.post(`/spaces/${spaceId}/change-requests`, subject === undefined ? undefined : { subject });
  expect(res.status).toBe(201);
  return res.body;
}

describe('change request life cycle', () => {
  let space: { id: string; revision: string };
  let cr: any;
  let path: string;
  beforeAll(async () => {
    space = await newSpace();
  });

  it('creates a draft with the next number, its own copy of the space revision and the full shape', async () => {
    cr = await newChangeRequest(space.id, 'Fix the intro');
    path = `/spaces/${space.id}/change-requests/${cr.id}`;
    expect(cr).toMatchObject({
      object: 'change-request',
      number: 1,
      status: 'draft',
      subject: 'Fix the intro',
      createdBy: { object: 'user', id: t.world.users.edit.id, displayName: 'Ada edit' },
      space: space.id,
      revisionInitial: space.revision,
      comments: 0,
      outdated: false,
      urls: { location: `${t.url}${path}`, app: expect.stringMatching(/^http:\/\/.+\/changes\/1$/) },
    });
    expect(cr.revision).not.toBe(space.revision);
    expect(contentOf(cr.revision)).toEqual(contentOf(space.revision));
    expect(cr.revisionMergedAncestor).toBeUndefined();
    expect(cr.revisionMerged).toBeUndefined();
    const second = await newChangeRequest(space.id);
    expect(second).toMatchObject({ number: 2, subject: '' });
  });

  it('PATCH changes the subject and moves between draft, open and archived', async () => {
    const renamed = await as.edit.patch(path, { subject: 'Rewrite the intro' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ subject: 'Rewrite the intro', status: 'draft' });
    for (const status of ['draft', 'open', 'archived', 'open'] as const) {
      const res = await as.edit.patch(path, { status });
      expect(res.body.status).toBe(status);
      expect((await t.api.get(path)).body.status).toBe(status);
    }
    const both = await as.edit.patch(path, { subject: 'Intro', status: 'open' });
    expect(both.body).toMatchObject({ subject: 'Intro', status: 'open' });
  });

  it('update pulls a merged sibling into the change request: outdated flips true, then false', async () => {
    const [intro] = pagesOf(t.upstream.db, space.revision);
    edit(cr.id, [
      { page_id: intro.page_id, markdown: 'Welcome, rewritten.' },
      { title: 'Guide', markdown: 'How to.' },
    ]);
    const other = await newChangeRequest(space.id, 'Add a FAQ');
    edit(other.id, [{ title: 'FAQ', markdown: 'Questions.' }]);
    const merged = await as.edit.post(`/spaces/${space.id}/change-requests/${other.id}/merge`);
    expect(merged.status).toBe(200);
    expect((await spaceOf(space.id)).revision).toBe(merged.body.revision);

    expect((await t.api.get(path)).body.outdated).toBe(true);
    const updated = await as.edit.post(`${path}/update`);
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ revision: expect.any(String), result: 'update' });
    const after = (await t.api.get(path)).body;
    expect(after).toMatchObject({ outdated: false, revision: updated.body.revision, revisionMergedAncestor: merged.body.revision });
    expect(contentOf(after.revision)).toEqual(['Introduction: Welcome, rewritten.', 'Guide: How to.', 'FAQ: Questions.']);
    const again = await as.edit.post(`${path}/update`);
    expect(again.body).toEqual({ revision: after.revision, result: 'update' });
  });

  it('merge writes the change request into the space as a new revision and sets merged', async () => {
    const before = await spaceOf(space.id);
    const res = await as.edit.post(`${path}/merge`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revision: expect.any(String), result: 'merge' });
    const after = await spaceOf(space.id);
    expect(after.revision).toBe(res.body.revision);
    expect(after.revision).not.toBe(before.revision);
    expect(contentOf(after.revision)).toEqual(['Introduction: Welcome, rewritten.', 'Guide: How to.', 'FAQ: Questions.']);
    const merged = (await t.api.get(path)).body;
    expect(merged).toMatchObject({ status: 'merged', revisionMerged: res.body.revision, outdated: false });
  });

  it('a merged change request cannot be merged, updated or patched; merged is not a PATCH status', async () => {
    const again = await as.edit.post(`${path}/merge`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already merged/);
    expect((await as.edit.post(`${path}/update`)).status).toBe(409);
    expect((await as.edit.patch(path, { subject: 'Late' })).status).toBe(409);
    const res = await as.edit.patch(path, { status: 'merged' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('status: must be one of draft, open, archived');
  });

  it('merge works from any status (the seed: any → merged), archived and draft included', async () => {
    for (const status of ['archived', 'draft'] as const) {
      const cr = await newChangeRequest(space.id, `Parked ${status}`);
      const p = `/spaces/${space.id}/change-requests/${cr.id}`;
      await as.edit.patch(p, { status });
      const merged = await as.edit.post(`${p}/merge`);
      expect(merged.status).toBe(200);
      expect(merged.body.result).toBe('merge');
      expect((await as.edit.get(p)).body).toMatchObject({ status: 'merged', revisionMerged: merged.body.revision });
      expect((await as.edit.post(`${p}/merge`)).status).toBe(409);
    }
  });

  it('the space counts its change requests by status', async () => {
    const s = await spaceOf(space.id);
    const all = await t.api.all(`/spaces/${space.id}/change-requests`, { status: 'draft' });
    expect(s.changeRequestsDraft).toBe(all.items.length);
    expect(s.changeRequests).toBeGreaterThanOrEqual(4);
  });
});

describe('three-way merge', () => {
  it('keeps pages changed only in main, applies the change request’s edits and deletions', async () => {
    const space = await newSpace('Merge');
    const seed = await newChangeRequest(space.id);
    edit(seed.id, [
      { title: 'X', markdown: 'x0' },
      { title: 'Y', markdown: 'y0' },
      { title: 'Z', markdown: 'z0' },
    ]);
    await as.edit.post(`/spaces/${space.id}/change-requests/${seed.id}/merge`);
    const ids = Object.fromEntries(pagesOf(t.upstream.db, (await spaceOf(space.id)).revision).map((p) => [p.title, p.page_id]));

    const mine = await newChangeRequest(space.id);
    const theirs = await newChangeRequest(space.id);
    edit(theirs.id, [
      { page_id: ids.Y, markdown: 'y-main' },
      { page_id: ids.X, markdown: 'x-main' },
    ]);
    await as.edit.post(`/spaces/${space.id}/change-requests/${theirs.id}/merge`);
    edit(mine.id, [
      { page_id: ids.X, markdown: 'x-mine' },
      { page_id: ids.Z, delete: true },
      { title: 'W', markdown: 'w-new' },
    ]);
    const res = await as.edit.post(`/spaces/${space.id}/change-requests/${mine.id}/merge`);
    expect(contentOf(res.body.revision)).toEqual([
      'Introduction: # Introduction\n\nWelcome to this space.\n',
      'X: x-mine',
      'Y: y-main',
      'W: w-new',
    ]);
  });
});

describe('lookup and lists', () => {
  let space: { id: string; revision: string };
  const crs: any[] = [];
  beforeAll(async () => {
    space = await newSpace('Lists');
    for (let i = 0; i < 7; i++) {
      const cr = await newChangeRequest(space.id, `CR ${i}`, i % 2 ? as.admin : as.edit);
      await t.api.patch(`/spaces/${space.id}/change-requests/${cr.id}`, { status: 'open' });
      crs.push(cr);
    }
    await t.api.patch(`/spaces/${space.id}/change-requests/${crs[6].id}`, { status: 'archived' });
  });

  it('GET takes the id or the number', async () => {
    const byNumber = await t.api.get(`/spaces/${space.id}/change-requests/3`);
    expect(byNumber.body.id).toBe(crs[2].id);
    expect((await t.api.get(`/spaces/${space.id}/change-requests/${crs[2].id}`)).body.number).toBe(3);
    expect((await t.api.get(`/spaces/${space.id}/change-requests/99`)).status).toBe(404);
    expect((await t.api.get(`/spaces/${space.id}/change-requests/nope`)).status).toBe(404);
    const other = await newSpace('Other');
    expect((await t.api.get(`/spaces/${other.id}/change-requests/${crs[0].id}`)).status).toBe(404);
  });

  it('lists open change requests by default, most recently updated first; status filters', async () => {
    const open = await t.api.get(`/spaces/${space.id}/change-requests`);
    expect(open.body.items.map((c: any) => c.subject)).toEqual(['CR 5', 'CR 4', 'CR 3', 'CR 2', 'CR 1', 'CR 0']);
    const archived = await t.api.get(`/spaces/${space.id}/change-requests`, { status: 'archived' });
    expect(archived.body.items.map((c: any) => c.subject)).toEqual(['CR 6']);
    expect((await t.api.get(`/spaces/${space.id}/change-requests`, { status: 'merged' })).body.count).toBe(0);
    const bad = await t.api.get(`/spaces/${space.id}/change-requests`, { status: 'closed' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^status: must be one of draft, open, archived, merged/);
  });

  it('filters by contributor: the creator or anyone who edited it', async () => {
    edit(crs[1].id, [{ title: 'Edited', markdown: 'by the editor' }], t.world.users.edit.id);
    const byEditor = await t.api.all(`/spaces/${space.id}/change-requests`, { contributor: t.world.users.edit.id });
    expect(byEditor.items.map((c: any) => c.subject).sort()).toEqual(['CR 0', 'CR 1', 'CR 2', 'CR 4']);
    const byAdmin = await t.api.all(`/spaces/${space.id}/change-requests`, { contributor: t.world.users.admin.id });
    expect(byAdmin.items.map((c: any) => c.subject).sort()).toEqual(['CR 1', 'CR 3', 'CR 5']);
    const nobody = await t.api.get(`/spaces/${space.id}/change-requests`, { contributor: t.world.users.read.id });
    expect(nobody.body).toEqual({ items: [], count: 0 });
  });

  it('pages through to the end with no duplicate and no gap', async () => {
    const walked = await t.api.all(`/spaces/${space.id}/change-requests`, { limit: 2 });
    expect(walked.pages).toBe(3);
    const ids = walked.items.map((c: any) => c.id);
    expect(new Set(ids).size).toBe(6);
    expect(ids).toEqual((await t.api.get(`/spaces/${space.id}/change-requests`)).body.items.map((c: any) => c.id));
    expect((await t.api.get(`/spaces/${space.id}/change-requests`, { limit: 1001 })).status).toBe(400);
  });
});

describe('validation and access', () => {
  let space: { id: string; revision: string };
  let cr: any;
  beforeAll(async () => {
    space = await newSpace('Access');
    cr = await newChangeRequest(space.id);
  });

  it('subject: 100 characters pass, 101 do not (create and PATCH)', async () => {
    const ok = await as.edit.post(`/spaces/${space.id}/change-requests`, { subject: 'a'.repeat(100) });
    expect(ok.status).toBe(201);
    const long = await as.edit.post(`/spaces/${space.id}/change-requests`, { subject: 'a'.repeat(101) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toBe('subject: must be at most 100 characters long');
    const patch = await as.edit.patch(`/spaces/${space.id}/change-requests/${cr.id}`, { subject: 'b'.repeat(101) });
    expect(patch.status).toBe(400);
    const unknown = await as.edit.post(`/spaces/${space.id}/change-requests`, { title: 'x' });
    expect(unknown.body.error.message).toBe('title: is not a known field');
  });

  it('401 without a token, 404 for outsiders and guests, 403 below edit', async () => {
    const list = `/spaces/${space.id}/change-requests`;
    expect((await t.api.as(undefined).get(list)).status).toBe(401);
    expect((await t.api.as('bogus').post(list, {})).status).toBe(401);
    expect((await as.outsider.get(`${list}/${cr.id}`)).status).toBe(404);
    expect((await as.guest.get(list)).status).toBe(404);
    expect((await as.read.get(`${list}/${cr.id}`)).status).toBe(200);
    const denied = await as.read.post(list, { subject: 'Nope' });
    expect(denied.status).toBe(403);
    for (const client of [as.comment, as.review]) {
      expect((await client.post(list)).status).toBe(403);
      expect((await client.patch(`${list}/${cr.id}`, { status: 'open' })).status).toBe(403);
      expect((await client.post(`${list}/${cr.id}/merge`)).status).toBe(403);
      expect((await client.post(`${list}/${cr.id}/update`)).status).toBe(403);
    }
    expect((await as.outsider.post(`${list}/${cr.id}/merge`)).status).toBe(404);
  });

  it('a locked space takes no new change request and no merge', async () => {
    const locked = await newSpace('Locked');
    const open = await newChangeRequest(locked.id);
    expect((await t.api.patch(`/spaces/${locked.id}`, { editMode: 'locked' })).status).toBe(200);
    expect((await as.edit.post(`/spaces/${locked.id}/change-requests`)).status).toBe(403);
    expect((await as.edit.post(`/spaces/${locked.id}/change-requests/${open.id}/merge`)).status).toBe(403);
    expect((await t.api.get(`/spaces/${locked.id}/change-requests/${open.id}`)).status).toBe(200);
  });
});

/** The text drawn on each PDF page (pdf-lib writes hex strings in deflated content streams). */
async function pdfText(bytes: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(bytes);
  return doc.getPages().map((page) => {
    const contents = page.node.Contents()!;
    const streams = (contents instanceof PDFArray ? contents.asArray().map((r) => doc.context.lookup(r)) : [contents]) as PDFRawStream[];
    return streams
      .map((s) => {
        const raw = Buffer.from(s.contents);
        const ops = (s.dict.get(PDFName.of('Filter')) ? inflateSync(raw) : raw).toString('latin1');
        return [...ops.matchAll(/<([0-9A-Fa-f]*)> Tj/g)].map((m) => Buffer.from(m[1], 'hex').toString('latin1')).join('\n');
      })
      .join('\n');
  });
}

describe('PDF', () => {
  let space: { id: string; revision: string };
  let cr: any;
  let pageIds: Record<string, string>;
  let base: string;
  beforeAll(async () => {
    space = await newSpace('Print');
    cr = await newChangeRequest(space.id, 'Printable');
    edit(cr.id, [
      { title: 'Guide', markdown: '# Setup\n\nInstall the tool.\n\n- one\n- two' },
      { title: 'Reference', markdown: 'Every option, explained. '.repeat(200) },
    ]);
    pageIds = Object.fromEntries(
      pagesOf(t.upstream.db, (await t.api.get(`/spaces/${space.id}/change-requests/${cr.id}`)).body.revision).map((p) => [
        p.title,
        p.page_id,
      ]),
    );
    base = `/spaces/${space.id}/change-requests/${cr.id}/pdf`;
  });

  async function download(url: string) {
    const res = await fetch(url);
    return { status: res.status, type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  it('gives a URL that serves a real PDF without a bearer token', async () => {
    const res = await as.read.get(`/spaces/${space.id}/change-requests/1/pdf`);
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(new RegExp(`^${t.url}/spaces/${space.id}/change-requests/${cr.id}/pdf/render\\?token=`));
    const pdf = await download(res.body.url);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(Buffer.from(pdf.bytes.slice(0, 5)).toString()).toBe('%PDF-');
    const pages = await pdfText(pdf.bytes);
    expect(pages.length).toBeGreaterThan(4); // title page, Introduction, Guide, Reference over 2+ pages
    expect(pages[0]).toContain('Printable');
    const all = pages.join('\n');
    for (const text of ['Introduction', 'Guide', 'Setup', 'Install the tool.', '- two', 'Reference', 'Every option, explained.'])
      expect(all).toContain(text);
  });

  it('only + page prints that page alone; page alone prints it and what lies under it', async () => {
    const only = await t.api.get(base, { only: true, page: pageIds.Guide });
    const pages = await pdfText((await download(only.body.url)).bytes);
    expect(pages).toHaveLength(2);
    expect(pages[1]).toContain('Guide');
    expect(pages.join('\n')).not.toContain('Reference');
    const fromPage = await t.api.get(base, { page: pageIds.Guide });
    expect(await pdfText((await download(fromPage.body.url)).bytes)).toHaveLength(2);
  });

  it('400 for only without page or a bad boolean, 404 for an unknown page', async () => {
    const noPage = await t.api.get(base, { only: true });
    expect(noPage.status).toBe(400);
    expect(noPage.body.error.message).toBe('page: is required when only is true');
    expect((await t.api.get(base, { only: 'yes' })).body.error.message).toMatch(/^only:/);
    expect((await t.api.get(base, { page: 'nope' })).status).toBe(404);
    expect((await t.api.get(base, { only: false })).status).toBe(200);
    expect((await as.outsider.get(base)).status).toBe(404);
  });

  it('a tampered, foreign, missing or expired token is refused', async () => {
    const { url } = (await t.api.get(base)).body as { url: string };
    const token = new URL(url).searchParams.get('token')!;
    const [payload, signature] = token.split('.');
    const grant = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...grant, expires: grant.expires + 1e9 })).toString('base64url');
    const tampered = url.replace(token, `${widened}.${signature}`);
    expect((await download(tampered)).status).toBe(403);
    expect((await download(url.replace(/token=.*/, 'token=garbage'))).status).toBe(403);
    expect((await download(url.replace(/\?token=.*/, ''))).status).toBe(401);
    const other = await newChangeRequest(space.id);
    expect((await download(url.replace(`/${cr.id}/`, `/${other.id}/`))).status).toBe(403);
    t.clock.advance(61 * 60 * 1000);
    const expired = await download(url);
    expect(expired.status).toBe(403);
  });

  it('a link stops working when its space is deleted, and works again if the space is restored', async () => {
    const doomed = await newSpace('Doomed');
    const doomedCr = await newChangeRequest(doomed.id, 'Last words');
    const { url } = (await t.api.get(`/spaces/${doomed.id}/change-requests/${doomedCr.id}/pdf`)).body as { url: string };
    expect((await download(url)).status).toBe(200);
    expect((await t.api.delete(`/spaces/${doomed.id}`)).status).toBe(204);
    // Before: the signed link kept serving the deleted space's content for its hour.
    expect((await download(url)).status).toBe(404);
    expect((await t.api.post(`/spaces/${doomed.id}/restore`, {})).status).toBe(200);
    expect((await download(url)).status).toBe(200);
  });
});

describe('public spaces', () => {
  it('open their content to anyone signed in, not their change requests, comments or permissions', async () => {
    const space = await newSpace('Public docs');
    t.upstream.db.prepare(`UPDATE spaces SET visibility = 'public' WHERE id = ?`).run(space.id);
    const cr = await newChangeRequest(space.id, 'Draft plans');
    const comments = `/spaces/${space.id}/change-requests/${cr.id}/comments`;
    const comment = (await as.edit.post(comments, { body: { markdown: 'Internal note' } })).body;
    expect((await as.outsider.get(`/spaces/${space.id}`)).body.permissions).toMatchObject({ access: true, comment: false });
    for (const path of [
      `/spaces/${space.id}/change-requests`,
      `/spaces/${space.id}/change-requests/${cr.id}`,
      `/spaces/${space.id}/change-requests/${cr.id}/pdf`,
      comments,
      `${comments}/${comment.id}`,
      `${comments}/${comment.id}/replies`,
      `/spaces/${space.id}/permissions/users`,
      `/spaces/${space.id}/permissions/aggregate`,
    ]) {
      expect((await as.outsider.get(path)).status, path).toBe(404);
      expect((await as.read.get(path)).status, path).toBe(200);
    }
    expect((await as.outsider.post(`/spaces/${space.id}/change-requests`, {})).status).toBe(404);
  });
});
