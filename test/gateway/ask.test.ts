/**
 * The AI ask as query fields: `Organization.ask` (POST /orgs/{organizationId}/ask) and
 * `Organization.suggestedQuestions` (GET …/ask/questions), compared with what REST answers for the
 * same caller; arguments checked with the upstream's rules before the ask's REST call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpaceRow } from '../../src/upstream/domain/spaces.js';
import { addAskContent, DOCKER_QUESTION } from '../helpers/askContent.js';
import { startStack, type TestStack } from '../helpers/gateway.js';

let t: TestStack;
let spaces: { guides: SpaceRow; networking: SpaceRow };

beforeAll(async () => {
  t = await startStack();
  spaces = addAskContent(t);
});
afterAll(() => t.stop());

const askPath = () => `/orgs/${t.world.orgId}/ask`;
const restAsk = async (body: Record<string, unknown>, query: Record<string, string | boolean> = {}) => {
  const res = await t.api.post(askPath(), body, query);
  expect(res.status).toBe(200);
  return res.body.answer;
};

const ASK = /* GraphQL */ `
  query Ask($organizationId: String!, $query: String!, $format: ContentFormat, $details: Boolean, $previousQueries: [String!]) {
    organization(organizationId: $organizationId) {
      title
      ask(query: $query, format: $format, details: $details, previousQueries: $previousQueries) {
        answer {
          markdown
          document
        }
        followupQuestions
        sources {
          type
          reason
          page
          revision
          sections
          space {
            id
            restId
            title
          }
        }
        details
      }
    }
  }
`;

const askCalls = () => t.calls.filter((c) => c.path === askPath());

describe('Organization.ask', () => {
  it('answers as REST does: body in the requested format, followups, page sources with their space', async () => {
    const rest = await restAsk({ query: DOCKER_QUESTION }, { format: 'markdown' });
    t.resetCalls();
    const data = await t.data(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION, format: 'MARKDOWN' });
    const answer = data.organization.ask;
    expect(answer.answer).toEqual({ markdown: rest.answer.markdown, document: null });
    expect(answer.followupQuestions).toEqual(rest.followupQuestions);
    expect(answer.followupQuestions.length).toBeGreaterThan(0);
    expect(answer.sources).toHaveLength(rest.sources.length);
    answer.sources.forEach((source: any, i: number) => {
      const { space, type, ...fields } = rest.sources[i];
      expect(source).toMatchObject({ ...fields, type: type.toUpperCase() });
      expect(source.space.restId).toBe(space);
    });
    const titles = new Map([spaces.guides, spaces.networking].map((s) => [s.id, s.title]));
    expect(answer.sources.map((s: any) => s.space.title)).toEqual(rest.sources.map((s: any) => titles.get(s.space)));
    expect(answer.details).toBeNull();
    // One ask call; each distinct source space fetched once, however many sources name it.
    expect(askCalls()).toEqual([expect.objectContaining({ method: 'POST', status: 200 })]);
    const spaceCalls = t.calls.filter((c) => c.path.startsWith('/spaces/')).map((c) => c.path);
    expect(spaceCalls.sort()).toEqual([...new Set(rest.sources.map((s: any) => `/spaces/${s.space}`))].sort());
  });

  it('the space edge is a node that refetches by id', async () => {
    const data = await t.data(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION });
    const { id, title } = data.organization.ask.sources[0].space;
    const node = await t.data('query($id: ID!) { node(id: $id) { ... on Space { title } } }', { id });
    expect(node.node.title).toBe(title);
  });

  it('format DOCUMENT (the REST default) gives the document body', async () => {
    const rest = await restAsk({ query: DOCKER_QUESTION });
    const data = await t.data(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION, format: 'DOCUMENT' });
    expect(data.organization.ask.answer).toEqual({ markdown: null, document: rest.answer.document });
    expect(rest.answer.document).toBeTruthy();
  });

  it('the selection decides the format: answer { markdown } with no format asks REST for markdown', async () => {
    const rest = await restAsk({ query: DOCKER_QUESTION }, { format: 'markdown' });
    const query = `query($org: String!, $q: String!, $format: ContentFormat) { organization(organizationId: $org) { ask(query: $q, format: $format) { answer { markdown } } } }`;
    const data = await t.data(query, { org: t.world.orgId, q: DOCKER_QUESTION });
    expect(data.organization.ask.answer).toEqual({ markdown: rest.answer.markdown });
    expect(rest.answer.markdown).toBeTruthy();
    // A format argument that disagrees with the selection does not win either.
    const asked = await t.data(query, { org: t.world.orgId, q: DOCKER_QUESTION, format: 'DOCUMENT' });
    expect(asked.organization.ask.answer).toEqual({ markdown: rest.answer.markdown });
  });

  it('details: true adds how the query was read, as REST does', async () => {
    const rest = await restAsk({ query: DOCKER_QUESTION }, { details: true });
    const data = await t.data(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION, details: true });
    expect(data.organization.ask.details).toEqual(rest.details);
    expect(rest.details).toBeTruthy();
  });

  it('previousQueries are sent to REST and change the answer as they do there', async () => {
    const previousQueries = ['what does the proxy forward?'];
    const vars = { organizationId: t.world.orgId, query: 'docker', format: 'MARKDOWN' };
    const rest = await restAsk({ query: 'docker', previousQueries }, { format: 'markdown' });
    const without = await restAsk({ query: 'docker' }, { format: 'markdown' });
    expect(rest.answer.markdown).not.toBe(without.answer.markdown);
    const data = await t.data(ASK, { ...vars, previousQueries });
    expect(data.organization.ask.answer.markdown).toBe(rest.answer.markdown);
    expect((await t.data(ASK, vars)).organization.ask.answer.markdown).toBe(without.answer.markdown);
  });

  it('null, without error, when nothing in the content answers', async () => {
    const rest = await t.api.post(askPath(), { query: 'zeppelin kraken' });
    expect(rest.body).toEqual({});
    const res = await t.gql(ASK, { organizationId: t.world.orgId, query: 'zeppelin kraken' });
    expect(res.errors).toBeUndefined();
    expect(res.data.organization.ask).toBeNull();
  });

  it('previousQueries: 10 accepted, 11 rejected with BAD_USER_INPUT before the ask call; the rest resolves', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `question ${i}`);
    t.resetCalls();
    const ok = await t.gql(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION, previousQueries: ten });
    expect(ok.errors).toBeUndefined();
    expect(askCalls()).toHaveLength(1);

    t.resetCalls();
    const res = await t.gql(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION, previousQueries: [...ten, 'one more'] });
    expect(res.errors).toEqual([
      expect.objectContaining({
        path: ['organization', 'ask'],
        message: 'previousQueries: must have at most 10 items',
        extensions: { code: 'BAD_USER_INPUT', field: 'previousQueries' },
      }),
    ]);
    expect(res.data.organization).toEqual({ title: expect.any(String), ask: null });
    expect(askCalls()).toEqual([]);
  });

  it('an empty query is rejected with BAD_USER_INPUT before the ask call', async () => {
    t.resetCalls();
    const res = await t.gql(ASK, { organizationId: t.world.orgId, query: '' });
    expect(res.errors?.map((e) => [e.path, e.extensions])).toEqual([[['organization', 'ask'], { code: 'BAD_USER_INPUT', field: 'query' }]]);
    expect(askCalls()).toEqual([]);
  });

  it("asks with the caller's token: a guest, who can read none of these spaces, gets what REST gives the guest", async () => {
    const token = t.world.users.guest.token;
    const restAsGuest = await t.api.as(token).post(askPath(), { query: DOCKER_QUESTION });
    expect(restAsGuest.body).toEqual({});
    const asGuest = await t.gql(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION }, token);
    expect(asGuest.errors).toBeUndefined();
    expect(asGuest.data.organization.ask).toBeNull();
    const asAdmin = await t.data(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION });
    expect(asAdmin.organization.ask.sources.length).toBeGreaterThan(0);
  });

  it('NOT_FOUND for an organization the caller is not in', async () => {
    const res = await t.gql(ASK, { organizationId: t.world.orgId, query: DOCKER_QUESTION }, t.world.users.outsider.token);
    expect(res.data.organization).toBeNull();
    expect(res.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });
});

describe('Organization.suggestedQuestions', () => {
  it('equals REST, in one call', async () => {
    const rest = await t.api.get(`${askPath()}/questions`);
    t.resetCalls();
    const data = await t.data('query($id: String!) { organization(organizationId: $id) { suggestedQuestions } }', {
      id: t.world.orgId,
    });
    expect(data.organization.suggestedQuestions).toEqual(rest.body.questions);
    expect(rest.body.questions.length).toBeGreaterThan(1);
    expect(t.calls.filter((c) => c.path === `${askPath()}/questions`)).toHaveLength(1);
  });

  it("with the caller's token: a guest gets what REST gives the guest", async () => {
    const token = t.world.users.guest.token;
    const rest = await t.api.as(token).get(`${askPath()}/questions`);
    const data = await t.data(
      'query($id: String!) { organization(organizationId: $id) { suggestedQuestions } }',
      { id: t.world.orgId },
      token,
    );
    expect(data.organization.suggestedQuestions).toEqual(rest.body.questions);
  });
});
