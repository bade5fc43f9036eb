/**
 * `node bench/cpuprofile.mjs <file.cpuprofile> [top]`: where a V8 CPU profile's time went, as self
 * time per function and per package (node_modules/<name>, node: internals, the project's src/), so
 * the profiles recorded in docs/BENCHMARKS.md can be read without a browser.
 */
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 25);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
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
  const s = /\/(src|dist)\/([^/]+)/.exec(url);
  return s ? `project ${s[2]}` : url;
};
for (const [id, us] of self) {
  const { callFrame: f } = byId.get(id);
  const name = `${f.functionName || '(anonymous)'} ${where(f.url)}:${f.lineNumber + 1}`;
  fns.set(name, (fns.get(name) ?? 0) + us);
  const pkg = f.url ? where(f.url) : f.functionName || '(native)';
  pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
}
const show = (map) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`)
    .join('\n');
console.log(`total ${(total / 1000).toFixed(0)} ms sampled\n\n-- by package --\n${show(pkgs)}\n\n-- by function (self) --\n${show(fns)}`);
