/**
 * The extractive answer: the passages of the matching pages that best match the question,
 * quoted under their page titles, with followup questions and page sources.
 */
import type { CONTENT_FORMATS } from '../../api/rules.js';
import { markdownToDocument } from './document.js';
import { distinctQuestions } from './questions.js';
import { PREVIOUS_QUERY_WEIGHT, type PageHit } from './retrieval.js';
import { sectionsOf, type Section } from './sections.js';
import { sameTerm, sentenceEnds, words } from './text.js';

const MAX_QUOTES = 3;
const MAX_QUOTES_PER_PAGE = 2;
const MAX_QUOTE_CHARS = 700;
const MAX_FOLLOWUPS = 3;
/** Pages whose headings may become followup questions. */
const RELATED_PAGES = 5;

export interface Quote {
  hit: PageHit;
  section: Section;
  text: string;
  /** Sentence ends in `text`: the stream grows the answer one sentence at a time. */
  ends: number[];
  matched: string[];
  score: number;
  /** Place in the page, for reading order. */
  order: number;
}

export interface AnswerDraft {
  quotes: Quote[];
  followupQuestions: string[];
  sources: PageSource[];
}

export interface PageSource {
  type: 'page';
  page: string;
  revision: string;
  space: string;
  sections: string[];
  reason: string;
}

export type ContentFormat = (typeof CONTENT_FORMATS)[number];

/** The answer to the question from the pages found, or null when no passage matches. */
export function draftAnswer(hits: PageHit[], terms: string[], previousTerms: string[]): AnswerDraft | null {
  const best = hits[0]?.score || 1;
  const candidates = hits.flatMap((hit) =>
    sectionsOf(hit).flatMap((section, s) =>
      section.passages.map((passage, p) => ({
        ...quoteOf(hit, section, passage, terms, previousTerms, hit.score / best),
        order: s * 10_000 + p,
      })),
    ),
  );
  const quotes = pickQuotes(candidates.filter((q) => q.matched.length));
  if (!quotes.length) return null;
  return { quotes, followupQuestions: followups(hits, quotes, terms), sources: sourcesOf(quotes) };
}

function quoteOf(
  hit: PageHit,
  section: Section,
  passage: string,
  terms: string[],
  previousTerms: string[],
  pageScore: number,
): Omit<Quote, 'order'> {
  const text = clip(passage);
  const found = words(`${section.title} ${text}`);
  const weigh = (list: string[], weight: number) =>
    list.reduce((sum, term) => {
      const n = found.filter((w) => sameTerm(w, term)).length;
      return n ? sum + weight * (1 + Math.log(n)) : sum;
    }, 0);
  const matched = terms.filter((term) => found.some((w) => sameTerm(w, term)));
  const score = weigh(terms, 1) + weigh(previousTerms, PREVIOUS_QUERY_WEIGHT) + pageScore;
  return { hit, section, text, ends: sentenceEnds(text), matched, score };
}

/** A passage cut at its last sentence end within the quote length. */
function clip(passage: string): string {
  if (passage.length <= MAX_QUOTE_CHARS) return passage;
  const end = sentenceEnds(passage)
    .filter((e) => e <= MAX_QUOTE_CHARS)
    .pop();
  return end ? passage.slice(0, end) : `${passage.slice(0, MAX_QUOTE_CHARS).trimEnd()}…`;
}

/** The best quotes, grouped by page (best page first) and in reading order within a page. */
function pickQuotes(candidates: Quote[]): Quote[] {
  const perPage = new Map<string, number>();
  const picked: Quote[] = [];
  for (const q of [...candidates].sort((a, b) => b.score - a.score)) {
    const n = perPage.get(q.hit.pageId) ?? 0;
    if (n >= MAX_QUOTES_PER_PAGE) continue;
    perPage.set(q.hit.pageId, n + 1);
    picked.push(q);
    if (picked.length === MAX_QUOTES) break;
  }
  const pages = [...new Set(picked.map((q) => q.hit.pageId))];
  const rank = (q: Quote) => pages.indexOf(q.hit.pageId);
  return picked.sort((a, b) => rank(a) - rank(b) || a.order - b.order);
}

/** Questions from the headings of the related pages that the answer did not quote. */
function followups(hits: PageHit[], quotes: Quote[], terms: string[]): string[] {
  const quoted = new Set(quotes.map((q) => `${q.hit.pageId}#${q.section.id}`));
  const asked = (title: string) => words(title).every((w) => terms.some((t) => sameTerm(w, t)));
  const headings = hits
    .slice(0, RELATED_PAGES)
    .flatMap((hit) =>
      sectionsOf(hit)
        .filter((s) => s.level > 0 && s.level <= 3 && !quoted.has(`${hit.pageId}#${s.id}`))
        .map((s) => s.title),
    )
    .filter((title) => !asked(title));
  return distinctQuestions(headings, MAX_FOLLOWUPS);
}

function sourcesOf(quotes: Quote[]): PageSource[] {
  const byPage = new Map<string, Quote[]>();
  for (const q of quotes) byPage.set(q.hit.pageId, [...(byPage.get(q.hit.pageId) ?? []), q]);
  return [...byPage.values()].map((list) => {
    const { hit } = list[0];
    const sections = [...new Set(list.map((q) => q.section.id))];
    const titles = [...new Set(list.map((q) => q.section.title))];
    const terms = [...new Set(list.flatMap((q) => q.matched))];
    return {
      type: 'page' as const,
      page: hit.pageId,
      revision: hit.revisionId,
      space: hit.spaceId,
      sections,
      reason: `Quoted from "${titles.join('", "')}": matches ${terms.join(', ')}`,
    };
  });
}

/** The answer's markdown with the first `sentences` sentences of its quotes (all when absent). */
export function answerMarkdown(draft: AnswerDraft, sentences = Infinity): string {
  const parts: string[] = [];
  let left = sentences;
  draft.quotes.forEach((q, i) => {
    if (left <= 0) return;
    const n = Math.min(left, q.ends.length);
    left -= n;
    const previous = draft.quotes[i - 1];
    if (previous?.hit.pageId !== q.hit.pageId || previous.section.id !== q.section.id) parts.push(attribution(q));
    parts.push(blockquote(q.text.slice(0, q.ends[n - 1])));
  });
  return parts.join('\n\n');
}

/** Number of sentences in the answer: the number of growth steps of the stream. */
export const answerLength = (draft: AnswerDraft) => draft.quotes.reduce((n, q) => n + q.ends.length, 0);

/** `**Page title** › Section:` (the section only when it is not the page title). */
function attribution(q: Quote): string {
  const where = q.section.level > 0 && q.section.title !== q.hit.title ? ` › ${q.section.title}` : '';
  return `**${q.hit.title}**${where}:`;
}

const blockquote = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => (line.trim() ? `> ${line}` : '>'))
    .join('\n');

/** The `answer` content body in the requested format. */
export function contentBody(markdown: string, format: ContentFormat) {
  return format === 'markdown' ? { markdown } : { document: markdownToDocument(markdown) };
}
