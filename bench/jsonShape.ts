/**
 * A measuring aid (not a bench mode): `node --expose-gc --import tsx bench/jsonShape.ts`. What the
 * REST client's look at a large answer before parsing it costs (src/rest/jsonShape.ts), against
 * `JSON.parse` of the same text, and what the parse builds on the heap against `parsedBytes`'s
 * estimate: for a 900 KB markdown comment (the abuse bench's), a 5 MB document (the demo content
 * through the embedded upstream's converter) and the shapes of the fuzzing that ran the heap out.
 */
import { jsonShape, parsedBytes } from '../src/rest/jsonShape.js';
import { markdownToDocument } from '../src/upstream/ask/document.js';
import { apiGuide, designSystem, handbook, labNotes, releaseNotes } from '../src/upstream/demo/content.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx bench/jsonShape.ts');

const comment = (body: unknown) =>
  JSON.stringify({ object: 'comment', id: 'c1', createdAt: '2026-11-26T00:00:00.000Z', postedBy: { id: 'u1' }, body });

function documentAnswer(bytes: number): string {
  const markdown = [...apiGuide, ...handbook, ...designSystem, ...releaseNotes, ...labNotes].map((p) => p.markdown).join('\n');
  const once = comment({ document: markdownToDocument(markdown) }).length;
  return comment({ document: markdownToDocument(markdown.repeat(Math.round(bytes / once))) });
}

const ANSWERS: Record<string, () => string> = {
  '900 KB markdown comment': () => comment({ markdown: `# Big\n\n${'lorem ipsum '.repeat(Math.ceil((900 * 1024) / 12))}` }),
  '5 MB document': () => documentAnswer(5_000_000),
  '3 MB of {}': () => `{"items":[${Array(1_000_000).fill('{}').join(',')}],"count":1}`,
  '13 MB of small spaces': () =>
    `{"items":[${Array.from({ length: 300_000 }, (_, i) => `{"object":"space","id":"s${i}","title":"t"}`).join(',')}],"count":1}`,
  '2 MB of numbers': () => `[${Array(1_000_000).fill('0').join(',')}]`,
};

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timeMs(fn: () => unknown, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Heap bytes a parse of `text` keeps (after a collection), the text itself not counted. */
function parsedHeap(text: string): number {
  gc!();
  gc!();
  const before = process.memoryUsage().heapUsed;
  const kept = [JSON.parse(text)];
  gc!();
  gc!();
  const after = process.memoryUsage().heapUsed;
  kept.pop();
  return after - before + text.length;
}

console.log('| answer | bytes | objects and arrays | commas | scan (ms) | JSON.parse (ms) | heap of the parse (MB) | estimate (MB) |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [name, make] of Object.entries(ANSWERS)) {
  const text = make();
  const shape = jsonShape(text);
  const runs = text.length > 4_000_000 ? 9 : 21;
  const scan = timeMs(() => jsonShape(text), runs);
  const parse = timeMs(() => JSON.parse(text), runs);
  const mb = (n: number) => (n / 1e6).toFixed(1);
  console.log(
    `| ${name} | ${text.length} | ${shape.containers} | ${shape.commas} | ${scan.toFixed(2)} | ${parse.toFixed(2)} | ${mb(parsedHeap(text))} | ${mb(parsedBytes(text, shape))} |`,
  );
}
