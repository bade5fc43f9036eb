/**
 * Organization AI ask: retrieval over the pages the caller may read (FTS5, bm25), answered with
 * quoted passages, followup questions and page sources; blocking, or streamed as Server-Sent Events.
 */
import { askBodies, askQuery } from '../../api/bodies/ask.js';
import { CONTENT_FORMATS } from '../../api/rules.js';
import { requireOrg } from '../access.js';
import { answerEvents, answerOf, ask, type AskInput } from '../ask/ask.js';
import { recommendedQuestions } from '../ask/questions.js';
import { readableSpaces } from '../ask/retrieval.js';
import { streamEvents } from '../ask/sse.js';
import type { RequestContext, UpstreamServices } from '../context.js';
import { RAW, type Router } from '../router.js';

const BASE = '/orgs/{organizationId}/ask';

/** The organization, for any member (guests too); 404 for anyone else. */
function organizationOf(ctx: RequestContext): string {
  return requireOrg(ctx.db, ctx.params.organizationId, ctx.user().id).org.id;
}

function answerOptions(ctx: RequestContext) {
  return {
    format: ctx.query.enum('format', CONTENT_FORMATS, 'document'),
    details: ctx.query.boolean('details', false),
  };
}

function questionsOf(ctx: RequestContext): string[] {
  const organizationId = organizationOf(ctx);
  return recommendedQuestions(ctx.db, () => readableSpaces(ctx, organizationId));
}

export function register(router: Router, _services: UpstreamServices) {
  router.post(BASE, (ctx) => {
    const organizationId = organizationOf(ctx);
    const options = answerOptions(ctx);
    const body = ctx.body(askBodies['ask.create']);
    const input: AskInput = { query: body.query, previousQueries: body.previousQueries, ...options };
    const result = ask(ctx, organizationId, input);
    return result.draft ? { answer: answerOf(result, input) } : {};
  });

  router.get(`${BASE}/questions`, (ctx) => ({ questions: questionsOf(ctx) }));

  router.get(`${BASE}/questions/stream`, async (ctx) => {
    const questions = questionsOf(ctx);
    await streamEvents(
      ctx,
      'questions',
      questions.map((question) => ({ question })),
    );
    return RAW;
  });

  router.get(`${BASE}/stream`, async (ctx) => {
    const organizationId = organizationOf(ctx);
    const input: AskInput = { query: ctx.query.requiredString('query', askQuery), ...answerOptions(ctx) };
    const result = ask(ctx, organizationId, input);
    await streamEvents(ctx, 'answer', answerEvents(result, input));
    return RAW;
  });
}
