/** Questions derived from headings: the recommended questions and the answer's followups. */
import { pagesOf } from '../content/revisions.js';
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
export function distinctQuestions(headings: string[], max: number): string[] {
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
 * second-level headings of those pages, in space and page order.
 */
export function recommendedQuestions(db: Db, spaces: SpaceRow[]): string[] {
  const pages = spaces.flatMap((space) => pagesOf(db, space.revision_id));
  const titles = pages.map((p) => p.title);
  const subheadings = pages.flatMap((p) =>
    sectionsOf(p)
      .filter((s) => s.level === 2)
      .map((s) => s.title),
  );
  return distinctQuestions([...titles, ...subheadings], MAX_RECOMMENDED_QUESTIONS);
}
