/** Questions derived from headings: the recommended questions and the answer's followups. */
import type { Db } from '../db/index.js';
import type { SpaceRow } from '../domain/spaces.js';
import { sectionsOf } from './sections.js';

export const MAX_RECOMMENDED_QUESTIONS = 10;

/** `Installing with Docker` → `How does installing with Docker work?`; `Webhooks` → `What is Webhooks?`. */
export function questionFor(heading: string): string {
  const text = heading.trim().replace(/[.:]+$/, '');
  if (text.endsWith('?')) return text;
  const [first = '', ...rest] = text.split(/\s+/);
  if (/^[A-Za-z]{3,}ing$/.test(first)) return `How does ${[first.toLowerCase(), ...rest].join(' ')} work?`;
  return `What is ${text}?`;
}

/** Distinct questions (case-insensitive), in order, at most `max`. */
export function distinctQuestions(headings: Iterable<string>, max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const heading of headings) {
    const question = questionFor(heading);
    const key = question.toLowerCase();
    if (!heading.trim() || seen.has(key)) continue;
    seen.add(key);
    out.push(question);
    if (out.length === max) break;
  }
  return out;
}

/**
 * Questions for the readable content: page titles first (the most prominent headings), then the
 * second-level headings of those pages, in space and page order. Pages are read one at a time and
 * only until the questions are found, and a text already read adds no heading: every page of every
 * readable space, read whole and parsed, took 1.2 s of the event loop (the gateway's under `npm
 * start`) per request once a space of six pages had been duplicated 10,000 times.
 */
export function recommendedQuestions(db: Db, spaces: () => Iterable<SpaceRow>): string[] {
  return distinctQuestions(headingsOf(db, spaces), MAX_RECOMMENDED_QUESTIONS);
}

function* headingsOf(db: Db, spaces: () => Iterable<SpaceRow>): Generator<string> {
  const pages = function* <Page>(columns: string) {
    for (const space of spaces())
      yield* db
        .prepare(`SELECT ${columns} FROM pages WHERE revision_id = ? ORDER BY position`)
        .iterate(space.revision_id) as IterableIterator<Page>;
  };
  for (const { title } of pages<{ title: string }>('title')) yield title;
  const read = new Set<string>();
  for (const page of pages<{ title: string; markdown: string }>('title, markdown')) {
    if (read.has(page.markdown)) continue;
    read.add(page.markdown);
    for (const section of sectionsOf(page)) if (section.level === 2) yield section.title;
  }
}
