/**
 * The streamed AI ask as subscriptions: `askStream` (`GET /orgs/{organizationId}/ask/stream`, one
 * `AskAnswer` per REST event, the answer growing until the last carries followups and sources) and
 * `suggestedQuestionsStream` (`GET /orgs/{organizationId}/ask/questions/stream`, one question per
 * event). Arguments are checked with the upstream's rules before the REST stream opens; errors
 * arrive as the subscription's last result (see ./restStream.ts).
 */
import { askQuery } from '../../api/bodies/ask.js';
import { builder } from '../builder.js';
import { ContentFormat } from '../lib/enums.js';
import { bodyFormat } from '../lib/selection.js';
import { AskAnswer, askOptions, askPath, checkAskArgs, type RestAskAnswer } from '../nodes/AskAnswer.js';
import { resolveEvent, restSubscription } from './restStream.js';

/** `{type: answer, answer}`; other event types (not shown in the seed) are skipped. */
const readAnswer = (json: { type?: string; answer?: RestAskAnswer }) => (json?.type === 'answer' ? json.answer : undefined);
const readQuestion = (json: { question?: unknown }) => (typeof json?.question === 'string' ? json.question : undefined);

builder.subscriptionFields((t) => ({
  askStream: t.field({
    type: AskAnswer,
    description:
      'Asks the AI a question and yields the answer as `GET /orgs/{organizationId}/ask/stream` sends it: each event a ' +
      'growing answer, the last one with followup questions and sources; completes when the REST stream ends.',
    args: {
      organizationId: t.arg.string({ required: true }),
      query: t.arg.string({ required: true }),
      format: t.arg({ type: ContentFormat }),
      details: t.arg.boolean({ description: 'Adds `details` (how the query was read) to each answer.' }),
    },
    subscribe: (_root, args, ctx, info) =>
      restSubscription(
        ctx,
        () => {
          checkAskArgs(args, { query: { ...askQuery, required: true } });
          const format = bodyFormat(info, [['answer']], args.format);
          return { path: `${askPath(args.organizationId)}/stream`, query: { query: args.query, ...askOptions({ ...args, format }) } };
        },
        readAnswer,
      ),
    resolve: resolveEvent,
  }),
  suggestedQuestionsStream: t.field({
    type: 'String',
    description: 'Yields the suggested questions as `GET /orgs/{organizationId}/ask/questions/stream` sends them.',
    args: { organizationId: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx) =>
      restSubscription(ctx, () => ({ path: `${askPath(args.organizationId)}/questions/stream` }), readQuestion),
    resolve: resolveEvent,
  }),
}));
