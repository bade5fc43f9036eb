/**
 * A small markdown → JSON document converter for answer bodies (`format=document`): headings,
 * paragraphs, block quotes, unordered lists, fenced code, and bold / italic / code marks.
 */
type Mark = { object: 'mark'; type: 'bold' | 'italic' | 'code' };
type Leaf = { object: 'leaf'; text: string; marks: Mark[] };
type Text = { object: 'text'; leaves: Leaf[] };
export type Block = { object: 'block'; type: string; data: Record<string, unknown>; nodes: Array<Block | Text> };
export interface JsonDocument {
  object: 'document';
  data: Record<string, unknown>;
  nodes: Block[];
}

const FENCE = /^\s*(```|~~~)\s*([\w+-]*)/;
/**
 * A heading's marks and the rest of its line. The title is cut from the rest by `headingOf`, not
 * here: `^(#{1,6})\s+(.+?)\s*#*\s*$` backtracked cubically on a line of spaces (`# a`, 4,000
 * spaces, `b`: 19 s), and a comment's line is the commenter's: each create and read of such a
 * comment as a document (the default format) held the process (gateway and REST API under
 * `npm start`) that long.
 */
const HEADING = /^(#{1,6})(\s+)(.*)$/s;
/** Line breaks other than `\n` (lines are split on it): no part of a title, as of a `.` match. */
const LINE_BREAK = /[\r\u2028\u2029]/;
const isSpace = (c: string) => /\s/.test(c);

/**
 * `## Title ##` → level 2, `Title`, in one pass: what `^(#{1,6})\s+(.+?)\s*#*\s*$` matches (a
 * closing run of `#`s and the white space around it are no part of the title, which keeps one
 * character at least); undefined for any other line.
 */
export function headingOf(line: string): { level: number; title: string } | undefined {
  const match = HEADING.exec(line);
  if (!match) return undefined;
  const [, marks, space, rest] = match;
  if (!rest) {
    // Marks and white space only: the title is the last white space character past the first that
    // is no line break.
    let last = space.length - 1;
    while (last > 0 && LINE_BREAK.test(space[last])) last--;
    return last > 0 ? { level: marks.length, title: space[last] } : undefined;
  }
  let end = rest.length;
  while (end > 0 && isSpace(rest[end - 1])) end--;
  while (end > 0 && rest[end - 1] === '#') end--;
  while (end > 0 && isSpace(rest[end - 1])) end--;
  const title = rest.slice(0, Math.max(end, 1));
  return LINE_BREAK.test(title) ? undefined : { level: marks.length, title };
}

/**
 * `- item`: the marker, its white space, the item (group 2). The white space is matched once, in a
 * lookahead (JavaScript's atomic group): `\s+(.*)$` gave back one space at a time when a line
 * break (`\r`, U+2028) stopped the `.*`, and took the rest again each time, quadratic: a comment
 * of `- `, 40,000 spaces, `a\rb` took 2 s to convert, one of 1 MB a quarter of an hour.
 */
const LIST_ITEM = /^\s*[-*+](?=(\s+))\1(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;

/**
 * Block quotes nest at most this deep (markdown-it's CommonMark preset stops at 20 too); deeper `>`
 * stay text. A comment of `>` × 3,000 made a document nesting 6,000 levels: JSON.stringify
 * overflowed the stack on it (10,000: the converter did), so the comment, once stored, failed its
 * create and every list of its change request's comments with a 500.
 */
export const MAX_QUOTE_DEPTH = 20;

/**
 * Nodes (blocks, texts, leaves) a document of `length` characters of markdown holds at most: 64,
 * and one per 6 characters, up to MAX_DOCUMENT_NODES. Past them the rest of the markdown is one
 * plain leaf. A node is some 60 bytes of JSON (and more of heap), so a document stays within about
 * 11 times its markdown, as prose is: a 1 MB comment of `*a* ` made 500,000 leaves, and one read
 * of it (the default format) ran the process (gateway and REST API under `npm start`) out of heap.
 */
const nodeBudget = (length: number) => Math.min(64 + Math.floor(length / 6), MAX_DOCUMENT_NODES);

/**
 * Nodes a document holds at most, whatever the length of its markdown (120 KB of dense marks fill
 * it): within 11 times its markdown, a 900 KB comment's document was still 150,000 nodes, 9 MB of
 * JSON built in 0.5 s on `npm start`'s one event loop, more than the gateway reads (UPSTREAM_ERROR
 * for every `body { document }` of it), and 32 such reads at once took the heap to 120 of 152 MiB
 * and another caller's queries to a second. Now it is 20,000 nodes and the rest as written.
 */
export const MAX_DOCUMENT_NODES = 20_000;

/** Nodes the document being converted may still make (the conversion is synchronous: one at a time). */
let nodesLeft = 0;

export function markdownToDocument(markdown: string): JsonDocument {
  nodesLeft = nodeBudget(markdown.length);
  return { object: 'document', data: {}, nodes: blocks(markdown.split(/\r?\n/), 0) };
}

/** The rest of a document once its nodes are spent: one paragraph of plain text. */
const plain = (value: string): Block => ({
  object: 'block',
  type: 'paragraph',
  data: {},
  nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: value, marks: [] }] }],
});

function blocks(lines: string[], depth: number): Block[] {
  const out: Block[] = [];
  let i = 0;
  const take = (test: (line: string) => boolean) => {
    const taken: string[] = [];
    while (i < lines.length && test(lines[i])) taken.push(lines[i++]);
    return taken;
  };
  while (i < lines.length) {
    if (nodesLeft <= 0) {
      out.push(plain(lines.slice(i).join('\n')));
      break;
    }
    const line = lines[i];
    const fence = FENCE.exec(line);
    const heading = headingOf(line);
    if (!line.trim()) i++;
    else if (fence) {
      i++;
      const code = take((l) => !FENCE.test(l));
      i++;
      out.push(codeBlock(code, fence[2]));
    } else if (heading) {
      i++;
      out.push(block(`heading-${Math.min(heading.level, 3)}`, inline(heading.title)));
    } else if (QUOTE.test(line) && depth === MAX_QUOTE_DEPTH) {
      out.push(paragraph(take((l) => QUOTE.test(l)).join('\n')));
    } else if (QUOTE.test(line)) {
      const quoted = take((l) => QUOTE.test(l)).map((l) => QUOTE.exec(l)![1]);
      out.push(block('blockquote', blocks(quoted, depth + 1).map(quotable)));
    } else if (LIST_ITEM.test(line)) {
      const items = take((l) => LIST_ITEM.test(l)).map((l) => LIST_ITEM.exec(l)![2]);
      const listed: Block[] = [];
      for (const [n, item] of items.entries()) {
        if (nodesLeft <= 0) {
          listed.push(block('list-item', [plain(items.slice(n).join('\n'))]));
          break;
        }
        listed.push(block('list-item', [paragraph(item)]));
      }
      out.push(block('list-unordered', listed));
    } else {
      out.push(paragraph(take(isParagraphLine).join('\n')));
    }
  }
  return out;
}

const isParagraphLine = (l: string) => Boolean(l.trim()) && !headingOf(l) && ![FENCE, QUOTE, LIST_ITEM].some((pattern) => pattern.test(l));

const block = (type: string, nodes: Array<Block | Text>, data: Record<string, unknown> = {}): Block => {
  nodesLeft--;
  return { object: 'block', type, data, nodes };
};

const paragraph = (text: string) => block('paragraph', inline(text));

function codeBlock(lines: string[], syntax: string): Block {
  const codeLines: Block[] = [];
  for (const [n, l] of lines.entries()) {
    if (nodesLeft <= 0) {
      codeLines.push(block('code-line', [text(lines.slice(n).join('\n'), [])]));
      break;
    }
    codeLines.push(block('code-line', [text(l, [])]));
  }
  return block('code', codeLines, syntax ? { syntax } : {});
}

/** A quote holds no code block: its lines become a paragraph of code-marked text. */
function quotable(b: Block): Block {
  if (b.type !== 'code') return b;
  const lines = b.nodes.flatMap((line) => ((line as Block).nodes as Text[]).flatMap((t) => t.leaves.map((l) => l.text)));
  return block('paragraph', [{ object: 'text', leaves: [leaf(lines.join('\n'), 'code')] }]);
}

const text = (value: string, marks: Mark[]): Text => {
  nodesLeft -= 2;
  return { object: 'text', leaves: [{ object: 'leaf', text: value, marks }] };
};

/** Inline marks: `**bold**`, `*italic*` / `_italic_`, `` `code` ``; one text node with a leaf per run. */
function inline(source: string): Text[] {
  const leaves: Leaf[] = [];
  const pattern = /\*\*(.+?)\*\*|`([^`]+)`|\*([^*]+)\*|\b_([^_]+)_\b/g;
  let last = 0;
  for (let m = pattern.exec(source); m && nodesLeft > 0; m = pattern.exec(source)) {
    if (m.index > last) leaves.push(leaf(source.slice(last, m.index)));
    if (m[1] !== undefined) leaves.push(leaf(m[1], 'bold'));
    else if (m[2] !== undefined) leaves.push(leaf(m[2], 'code'));
    else leaves.push(leaf(m[3] ?? m[4], 'italic'));
    last = m.index + m[0].length;
  }
  if (last < source.length || !leaves.length) leaves.push(leaf(source.slice(last)));
  return [{ object: 'text', leaves }];
}

const leaf = (value: string, mark?: Mark['type']): Leaf => {
  nodesLeft--;
  return { object: 'leaf', text: value, marks: mark ? [{ object: 'mark', type: mark }] : [] };
};
