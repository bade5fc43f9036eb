/** The ask, end to end: readable spaces → matching pages → extractive answer → response shape. */
import type { RequestContext } from '../context.js';
import { answerLength, answerMarkdown, contentBody, draftAnswer, type AnswerDraft, type ContentFormat } from './answer.js';
import { readableSpaces, searchPages } from './retrieval.js';
import { termsOf } from './text.js';

export interface AskInput {
  query: string;
  previousQueries?: string[];
  format: ContentFormat;
  /** Adds `details` (how the query was read and searched) to the answer. */
  details: boolean;
}

/** What `details=true` adds to the answer. */
export interface AskDetails {
  query: string;
  terms: string[];
  previousTerms: string[];
  spaces: number;
  pages: number;
}

export interface AskResult {
  draft: AnswerDraft | null;
  details: AskDetails;
}

export function ask(ctx: RequestContext, organizationId: string, input: AskInput): AskResult {
  const terms = termsOf(input.query);
  const previousTerms = termsOf((input.previousQueries ?? []).join(' ')).filter((t) => !terms.includes(t));
  const hits = searchPages(ctx, organizationId, terms, previousTerms);
  const draft = draftAnswer(hits, terms, previousTerms);
  // Counted only when asked for: every space of the organization read for a number.
  const spaces = input.details ? count(readableSpaces(ctx, organizationId)) : 0;
  return { draft, details: { query: input.query, terms, previousTerms, spaces, pages: hits.length } };
}

function count(items: Iterable<unknown>): number {
  let n = 0;
  for (const _ of items) n++;
  return n;
}

/**
 * The answer object (SearchAIAnswer). With `sentences`, a partial answer of the stream: the first
 * sentences only, followups and sources still empty.
 */
export function answerOf(result: AskResult, input: AskInput, sentences?: number) {
  const { draft } = result;
  const complete = sentences === undefined || (draft !== null && sentences >= answerLength(draft));
  return {
    ...(draft ? { answer: contentBody(answerMarkdown(draft, sentences), input.format) } : {}),
    followupQuestions: complete && draft ? draft.followupQuestions : [],
    sources: complete && draft ? draft.sources : [],
    ...(input.details ? { details: result.details } : {}),
  };
}

/** The stream's events: the answer growing one sentence per event, the last one complete. */
export function* answerEvents(result: AskResult, input: AskInput) {
  const steps = result.draft ? answerLength(result.draft) : 1;
  for (let n = 1; n <= steps; n++) yield { type: 'answer' as const, answer: answerOf(result, input, n) };
}
