/**
 * The organization AI ask, read side: `AskAnswer` (answer body, followup questions, page sources
 * with an edge to their space), `Organization.ask` (`POST /orgs/{organizationId}/ask`, a read-only
 * computation, so a query field) and `Organization.suggestedQuestions`. The streamed variants are
 * subscriptions (src/schema/subscriptions/ask.ts) yielding the same `AskAnswer`.
 */
import type { SearchAIAnswer, SearchAIAnswerSourcePage } from '@gitbook/api';
import { askBodies } from '../../api/bodies/ask.js';
import type { Fields } from '../../api/validate.js';
import { builder } from '../builder.js';
import { ContentFormat, restEnum } from '../lib/enums.js';
import { checkInput } from '../lib/mutation.js';
import { ContentBody, orNull } from '../lib/fields.js';
import { bodyFormat } from '../lib/selection.js';
import { restPath } from '../lib/node.js';
import { Organization } from './Organization.js';
import { Space } from './Space.js';

/** The REST answer; `details` is present when asked for with `details: true`. */
export type RestAskAnswer = SearchAIAnswer & { details?: unknown };

export const askPath = (organizationId: string) => restPath`/orgs/${organizationId}/ask`;

/** Checks ask arguments with the upstream's own rules, before any REST call (BAD_USER_INPUT naming the argument). */
export function checkAskArgs(args: { query: string; previousQueries?: string[] | null }, rules: Fields = askBodies['ask.create']): void {
  checkInput(rules, { query: args.query, ...(args.previousQueries != null && { previousQueries: args.previousQueries }) }, '', false);
}

/** REST query parameters shared by the blocking and the streamed ask. */
export const askOptions = (args: { format?: string | null; details?: boolean | null }) => ({
  format: args.format ?? undefined,
  details: args.details ?? undefined,
});

const AskSourceType = restEnum('AskSourceType', ['page'], 'Kind of an answer source.');

export const AskSource = builder.objectRef<SearchAIAnswerSourcePage>('AskSource').implement({
  description: 'A page the answer was drawn from.',
  fields: (t) => ({
    type: t.field({ type: AskSourceType, resolve: (s) => s.type }),
    reason: t.string({ nullable: true, description: 'How the source was used to answer.', resolve: (s) => orNull(s.reason) }),
    page: t.exposeString('page', { description: 'The REST id of the page.' }),
    revision: t.exposeString('revision', { description: 'The REST id of the revision the page was read from.' }),
    space: t.field({
      type: Space,
      nullable: true,
      description: 'The space owning the page (`GET /spaces/{spaceId}`, at most once per space and request).',
      resolve: (s) => s.space,
    }),
    sections: t.stringList({ description: 'Ids of the page sections used to answer.', resolve: (s) => s.sections }),
  }),
});

export const AskAnswer = builder.objectRef<RestAskAnswer>('AskAnswer').implement({
  description: 'An AI answer over the content the caller can read.',
  fields: (t) => ({
    answer: t.field({
      type: ContentBody,
      nullable: true,
      description:
        'The answer body in the format selected (`markdown` or `document`; both: the `format` given), absent while a streamed answer has no text yet.',
      resolve: (a) => (a.answer as { markdown?: string; document?: unknown } | undefined) ?? null,
    }),
    followupQuestions: t.stringList({ resolve: (a) => a.followupQuestions }),
    sources: t.field({
      type: [AskSource],
      description: 'Page sources of the answer (other source kinds are left out).',
      resolve: (a) => a.sources.filter((s): s is SearchAIAnswerSourcePage => s.type === 'page'),
    }),
    details: t.expose('details', {
      type: 'JSON',
      nullable: true,
      description: 'How the question was read and searched (with `details: true`).',
    }),
  }),
});

builder.objectFields(Organization, (t) => ({
  ask: t.field({
    type: AskAnswer,
    nullable: true,
    description:
      'Asks the AI a question over the spaces the caller can read (`POST /orgs/{organizationId}/ask`); null when nothing answers it.',
    args: {
      query: t.arg.string({ required: true }),
      format: t.arg({ type: ContentFormat }),
      details: t.arg.boolean({ description: 'Adds `details` (how the query was read) to the answer.' }),
      previousQueries: t.arg.stringList({ description: 'Earlier questions of the conversation (at most 10; deprecated in REST).' }),
    },
    resolve: async (org, args, ctx, info) => {
      checkAskArgs(args);
      const body = { query: args.query, previousQueries: args.previousQueries ?? undefined };
      // The selection decides the format: `answer { markdown }` asks REST for markdown, whatever `format` says.
      const format = bodyFormat(info, [['answer']], args.format);
      const res = await ctx.caller.post<{ answer?: RestAskAnswer }>(askPath(org.id), body, askOptions({ ...args, format }));
      return res?.answer ?? null;
    },
  }),
  suggestedQuestions: t.stringList({
    nullable: true,
    description: 'Questions the AI suggests for the content the caller can read (`GET /orgs/{organizationId}/ask/questions`).',
    // A REST call of its own (cost.ts prices a field without arguments at 0).
    extensions: { cost: { weight: 1 } },
    resolve: async (org, _args, ctx) => (await ctx.rest.load<{ questions: string[] }>(`${askPath(org.id)}/questions`)).questions,
  }),
}));
