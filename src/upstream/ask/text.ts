/** Words, search terms and sentences: the small text toolkit of the ask. */

const STOPWORDS = new Set(
  `a an and are as at be by can do does for from how i if in into is it its me my of on or our
   should so that the their them then there these this to us was we what when where which who why
   will with you your`.split(/\s+/),
);

/** Lower-cased words of a text (letters and digits, diacritics removed). */
export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** The distinct search terms of a question: its words minus stopwords (all words if only stopwords). */
export function termsOf(text: string, max = 32): string[] {
  const all = [...new Set(words(text))];
  const kept = all.filter((w) => !STOPWORDS.has(w));
  return (kept.length ? kept : all).slice(0, max);
}

/** `installing` → `install`: a light suffix strip so word forms of one term meet. */
function stem(word: string): string {
  if (word.length <= 4) return word;
  return word.replace(/(?:ations?|ings?|edly|ed|es|s|ly)$/, '') || word;
}

/** True when a word of the text is a form of the term (same stem, or one stem prefixing the other). */
export function sameTerm(word: string, term: string): boolean {
  if (word === term) return true;
  const a = stem(word);
  const b = stem(term);
  if (a === b) return true;
  return Math.min(a.length, b.length) >= 4 && (a.startsWith(b) || b.startsWith(a));
}

/** An FTS5 query matching any of the terms (each quoted, so no term is read as syntax). */
export function ftsQuery(terms: string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

/**
 * Offsets just after each sentence of a passage, the last one being its end: a prefix of the
 * passage up to one of them never cuts a sentence.
 */
export function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  if (/^\s*(```|~~~)/.test(text)) return [text.length];
  const boundary = /[.!?](?=\s+\S)|\n(?=\s*(?:[-*+]|\d+\.)\s)/g;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) ends.push(m.index + 1);
  ends.push(text.length);
  return [...new Set(ends)].filter((e) => text.slice(0, e).trim());
}
