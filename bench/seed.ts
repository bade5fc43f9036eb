/**
 * The benchmark's data: one organization with `spaces` spaces, each with `changeRequests` open
 * change requests, each with `comments` comments, each with `replies` replies. The admin user, the
 * organization and the spaces are created directly (REST cannot); everything else through the
 * REST API, as a client would.
 */
import { addMember, createOrganization, createUser } from '../src/upstream/bootstrap.js';
import { systemClock } from '../src/upstream/clock.js';
import type { Db } from '../src/upstream/db/index.js';
import { insertSpace } from '../src/upstream/domain/spaces.js';

export interface Shape {
  spaces: number;
  changeRequests: number;
  comments: number;
  replies: number;
  /** Further members of the organization (admins, each with its own token), besides the admin. */
  callers?: number;
  /** Further spaces with no content (for the varied workload: one drawn at random per request). */
  plainSpaces?: number;
  /** One comment of this many bytes of markdown on the first change request (the abuse bench's large object). */
  bigComment?: number;
  /** A change request of its own with `count` comments of `bytes` of markdown each (the abuse bench's large pages). */
  largeComments?: { count: number; bytes: number };
}

export interface Seeded {
  token: string;
  /** The admin's token first, then one per further caller. */
  tokens: string[];
  /** The users of `tokens`, in the same order. */
  userIds: string[];
  /** The change request holding the big comment, when the shape asks for one. */
  bigComment?: { spaceId: string; changeRequestId: string };
  /** The change request holding the large comments, when the shape asks for them. */
  largeComments?: { spaceId: string; changeRequestId: string };
  organizationId: string;
  spaceIds: string[];
  /** Every space: `spaceIds`, then the plain ones. */
  allSpaceIds: string[];
  /** One change request (its space and REST id), for the node(id) query. */
  changeRequest: { spaceId: string; changeRequestId: string };
}

export async function seed(db: Db, baseUrl: string, shape: Shape): Promise<Seeded> {
  const now = () => systemClock.now().toISOString();
  const admin = createUser(db, systemClock, { displayName: 'Bench Admin', email: 'admin@bench.example' });
  const organizationId = createOrganization(db, systemClock, { title: 'Bench', hostname: 'bench' });
  addMember(db, systemClock, organizationId, admin.id, 'admin');
  const tokens = [admin.token];
  const userIds = [admin.id];
  for (let i = 1; i <= (shape.callers ?? 0); i++) {
    const user = createUser(db, systemClock, { displayName: `Bench Caller ${i}`, email: `caller${i}@bench.example` });
    addMember(db, systemClock, organizationId, user.id, 'admin');
    tokens.push(user.token);
    userIds.push(user.id);
  }
  const call = client(baseUrl, admin.token);
  const spaceIds = Array.from({ length: shape.spaces }, (_, i) => insertSpace(db, now(), { organizationId, title: `Space ${i + 1}` }).id);
  const plainSpaceIds = Array.from(
    { length: shape.plainSpaces ?? 0 },
    (_, i) => insertSpace(db, now(), { organizationId, title: `Plain space ${i + 1}` }).id,
  );
  const crs = await all(spaceIds, shape.changeRequests, async (spaceId, i) => {
    const cr = await call('POST', `/spaces/${spaceId}/change-requests`, { subject: `Change ${i + 1}` });
    await call('PATCH', `/spaces/${spaceId}/change-requests/${cr.id}`, { status: 'open' });
    return `/spaces/${spaceId}/change-requests/${cr.id}`;
  });
  const comments = await all(crs, shape.comments, async (cr, i) => {
    const comment = await call('POST', `${cr}/comments`, { body: { markdown: `Comment ${i + 1} on ${cr}` } });
    return `${cr}/comments/${comment.id}`;
  });
  await all(comments, shape.replies, (comment, i) => call('POST', `${comment}/replies`, { body: { markdown: `Reply ${i + 1}` } }));
  const [, , spaceId, , changeRequestId] = crs[0].split('/');
  if (shape.bigComment)
    await call('POST', `${crs[0]}/comments`, { body: { markdown: `# Big\n\n${'lorem ipsum '.repeat(Math.ceil(shape.bigComment / 12))}` } });
  const bigComment = shape.bigComment ? { spaceId, changeRequestId } : undefined;
  let largeComments: Seeded['largeComments'];
  if (shape.largeComments) {
    const cr = await call('POST', `/spaces/${spaceId}/change-requests`, { subject: 'Large comments' });
    const markdown = 'lorem ipsum '.repeat(Math.ceil(shape.largeComments.bytes / 12));
    for (let i = 0; i < shape.largeComments.count; i++)
      await call('POST', `/spaces/${spaceId}/change-requests/${cr.id}/comments`, { body: { markdown: `# ${i}\n\n${markdown}` } });
    largeComments = { spaceId, changeRequestId: cr.id };
  }
  return {
    token: admin.token,
    tokens,
    userIds,
    bigComment,
    largeComments,
    organizationId,
    spaceIds,
    allSpaceIds: [...spaceIds, ...plainSpaceIds],
    changeRequest: { spaceId, changeRequestId },
  };
}

/** `count` children for each parent, created concurrently; results in parent order. */
async function all<T>(parents: string[], count: number, make: (parent: string, i: number) => Promise<T>): Promise<T[]> {
  const made = await Promise.all(parents.map((p) => Promise.all(Array.from({ length: count }, (_, i) => make(p, i)))));
  return made.flat();
}

function client(baseUrl: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`seed: ${method} ${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}
