/** Splits a page's markdown into sections (by headings) and passages (by blank lines). */
import { slugify } from '../content/revisions.js';
import { headingOf } from './document.js';

export interface Section {
  /** Anchor id of the heading (`getting-started`), unique in the page. */
  id: string;
  /** Heading text; the page title for text before the first heading. */
  title: string;
  /** Heading level 1..6; 0 for text before the first heading. */
  level: number;
  passages: string[];
}

const FENCE = /^\s*(```|~~~)/;

export function sectionsOf(page: { title: string; markdown: string }): Section[] {
  const sections: Section[] = [];
  const used = new Set<string>();
  const open = (title: string, level: number) => {
    const base = slugify(title);
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
    used.add(id);
    const section: Section = { id, title, level, passages: [] };
    sections.push(section);
    return section;
  };
  let current: Section | null = null;
  let block: string[] = [];
  let fenced = false;
  const flush = () => {
    const text = block.join('\n').trim();
    block = [];
    if (text) (current ??= open(page.title, 0)).passages.push(text);
  };
  for (const line of page.markdown.split(/\r?\n/)) {
    if (FENCE.test(line)) fenced = !fenced;
    const heading = !fenced && headingOf(line);
    if (heading) {
      flush();
      current = open(stripInline(heading.title), heading.level);
    } else if (!fenced && !line.trim()) flush();
    else block.push(line);
  }
  flush();
  return sections;
}

/** Heading text without inline markdown (`**Setup**` → `Setup`). */
function stripInline(text: string): string {
  return text
    .replace(/[*_`]+/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim();
}
