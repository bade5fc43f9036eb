/**
 * The gateway against a REST API that takes only the query parameters GitBook's OpenAPI
 * description documents (the seed agrees): a proxy in front of the embedded upstream drops the
 * others, as a hosted API that ignores unknown parameters would. The embedded upstream takes
 * `format` on every comment and reply route; the description takes it on their reads and on a
 * reply's POST only, so a comment's POST and PUT and a reply's PUT answer the default, the document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import type { RestCall } from '../../src/rest/index.js';
import { startSwitchProxy, type SwitchProxy } from '../helpers/switchProxy.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

/** Comment writes whose operation in the description has no `format` parameter. */
const UNDOCUMENTED_FORMAT = /^(POST \/v1\/spaces\/[^/]+\/change-requests\/[^/]+\/comments|PUT \/v1\/spaces\/.+\/comments\/.+)$/;

let upstream: TestUpstream;
let proxy: SwitchProxy;
let gateway: Gateway;
let url: string;
const calls: RestCall[] = [];
let spaceId: string;
let changeRequestId: string;

beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startSwitchProxy(upstream.url);
  proxy.rewrite = (method, target) => {
    const u = new URL(target, 'http://proxy');
    if (UNDOCUMENTED_FORMAT.test(`${method} ${u.pathname}`)) u.searchParams.delete('format');
    return u.pathname + u.search;
  };
  gateway = buildGateway({ upstreamUrl: proxy.url, onRestCall: (c) => calls.push(c) });
  url = await gateway.start();
  spaceId = (await upstream.api.post(`/orgs/${upstream.world.orgId}/spaces`, { title: 'Talk' })).body.id;
  changeRequestId = (await upstream.api.post(`/spaces/${spaceId}/change-requests`, { subject: 'Discuss' })).body.id;
});

afterAll(async () => {
  await gateway.stop();
  await proxy.stop();
  await upstream.stop();
});

async function mutate(name: string, input: Record<string, unknown>, selection: string) {
  const type = `${name[0].toUpperCase()}${name.slice(1)}Input`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${upstream.world.users.admin.token}` },
    body: JSON.stringify({ query: `mutation($input: ${type}!) { ${name}(input: $input) { ${selection} } }`, variables: { input } }),
  });
  const result = (await res.json()) as { data?: Record<string, any>; errors?: unknown[] };
  expect(result.errors).toBeUndefined();
  return result.data![name];
}

describe('comment writes answered in the default format (no `format` on their operation)', () => {
  it('show the markdown body their payload selects', async () => {
    const keys = { spaceId, changeRequestId };
    const created = await mutate('createComment', { ...keys, body: { markdown: 'Hello' } }, 'comment { restId body { markdown } }');
    expect(created.comment.body).toEqual({ markdown: 'Hello' });
    const commentId = created.comment.restId;

    const updated = await mutate('updateComment', { ...keys, commentId, body: { markdown: 'Edited' } }, 'comment { body { markdown } }');
    expect(updated.comment.body).toEqual({ markdown: 'Edited' });

    const reacted = await mutate('addCommentReaction', { ...keys, commentId, emoji: '👍' }, 'comment { body { markdown } }');
    expect(reacted.comment.body).toEqual({ markdown: 'Edited' });

    const replied = await mutate(
      'createCommentReply',
      { ...keys, commentId, body: { markdown: 'Re' } },
      'commentReply { restId body { markdown } }',
    );
    expect(replied.commentReply.body).toEqual({ markdown: 'Re' });
    const commentReplyId = replied.commentReply.restId;

    calls.splice(0);
    const edited = await mutate(
      'updateCommentReply',
      { ...keys, commentId, commentReplyId, body: { markdown: 'Re 2' } },
      'commentReply { body { markdown } }',
    );
    expect(edited.commentReply.body).toEqual({ markdown: 'Re 2' });
    // The write, then one read of the reply in markdown.
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `PUT /spaces/${spaceId}/change-requests/${changeRequestId}/comments/${commentId}/replies/${commentReplyId}`,
      `GET /spaces/${spaceId}/change-requests/${changeRequestId}/comments/${commentId}/replies/${commentReplyId}`,
    ]);
  });
});
