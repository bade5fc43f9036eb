/**
 * `node bench/cpuprofile.mjs <file.cpuprofile> [top] [pattern]`: where a V8 CPU profile's time went, as
 * self time per function and per package (node_modules/<name>, node: internals, the project's src/), so
 * the profiles recorded in docs/BENCHMARKS.md and docs/BENCHMARKS-history.md can be read without a
 * browser. With `pattern` (a regular expression on `function file:line`, e.g. `project (rest|schema)`),
 * also the inclusive time of the functions it matches (their own time and that of everything they
 * called, each sample counted once per function however deep the recursion).
 */
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 25);
const pattern = process.argv[4] ? new RegExp(process.argv[4]) : undefined;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fns = new Map();
const pkgs = new Map();
const where = (url) => {
  if (!url) return '(native/v8)';
  const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node: internals';
  const s = /\/(src|dist)\/([^/]+)(?:\/([^/]+))?/.exec(url);
  return s ? `project ${s[2]}${s[3] ? `/${s[3]}` : ''}` : url;
};
const nameOf = (id) => {
  const { callFrame: f } = byId.get(id);
  return `${f.functionName || '(anonymous)'} ${where(f.url)}:${f.lineNumber + 1}`;
};
for (const [id, us] of self) {
  const { callFrame: f } = byId.get(id);
  fns.set(nameOf(id), (fns.get(nameOf(id)) ?? 0) + us);
  const pkg = f.url ? where(f.url).replace(/^(project [^/]+)\/.*/, '$1') : f.functionName || '(native)';
  pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
}
const show = (map) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`)
    .join('\n');
console.log(`total ${(total / 1000).toFixed(0)} ms sampled\n\n-- by package --\n${show(pkgs)}\n\n-- by function (self) --\n${show(fns)}`);
if (pattern) {
  const inclusive = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = nameOf(at);
      if (seen.has(name) || !pattern.test(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  console.log(`\n-- inclusive, functions matching ${pattern} --\n${show(inclusive)}`);
}
