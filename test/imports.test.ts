/**
 * The import graph (static imports and re-exports; `import type` / `export type` and imports of
 * types only are left out: they vanish at run time; dynamic `import()` is lazy loading, not an edge):
 * - `src` has no cycle;
 * - route files of the embedded upstream are imported only by `routes/index.ts` (which
 *   `server.ts` imports): no route imports another, and nothing else (demo, ask, tests, bench,
 *   scripts) imports one; the logic they share lives below them, in `src/upstream/domain`;
 * - no file of `src/gateway`, `src/schema` or `src/rest` imports the embedded upstream.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const SRC = join(ROOT, 'src');
/** Folders whose files may import route files only through the rules above (cycles are checked in src). */
const IMPORTERS = ['src', 'test', 'bench', 'scripts'].map((dir) => join(ROOT, dir));

/**
 * Cycles outside `src/upstream` that exist while another change removes them (files relative to
 * the repository root, one entry per strongly connected set). This list must shrink to empty:
 * a set that is gone fails the test until its entry is removed, and no new set may be added.
 */
const KNOWN_CYCLES: string[][] = [];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The `.ts` file a relative specifier names (`./x.js` → `x.ts`, `./dir` → `dir/index.ts`). */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => {
    try {
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
}

/** True when an import brings in values (not only types). */
function importsValues(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return true; // `import './x.js'`: a side effect
  if (clause.isTypeOnly) return false;
  if (clause.name) return true;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return true;
  return bindings.elements.length === 0 || bindings.elements.some((e) => !e.isTypeOnly);
}

function exportsValues(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return false;
  const clause = node.exportClause;
  if (!clause || !ts.isNamedExports(clause)) return true;
  return clause.elements.length === 0 || clause.elements.some((e) => !e.isTypeOnly);
}

/** Each file under `dirs` (relative path) → the files it imports values from. */
function importGraph(dirs: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap(filesUnder)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const targets = new Set<string>();
    for (const node of source.statements) {
      const valueImport =
        (ts.isImportDeclaration(node) && importsValues(node)) ||
        (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && exportsValues(node));
      if (!valueImport) continue;
      const specifier = ((node as ts.ImportDeclaration | ts.ExportDeclaration).moduleSpecifier as ts.StringLiteral).text;
      const target = resolveSpecifier(file, specifier);
      if (target) targets.add(relative(ROOT, target));
    }
    graph.set(relative(ROOT, file), [...targets].sort());
  }
  return graph;
}

/** Strongly connected sets of two or more files (or a file importing itself), each sorted (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      set.push(w);
    } while (w !== v);
    if (set.length > 1 || graph.get(v)?.includes(v)) found.push(set.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** One cycle through the set, as `a → b → … → a`, for the failure message. */
function cyclePath(graph: Map<string, string[]>, set: string[]): string {
  const members = new Set(set);
  const path = [set[0]];
  const seen = new Set(path);
  for (;;) {
    const here = path[path.length - 1];
    const step = (graph.get(here) ?? []).filter((w) => members.has(w));
    if (step.includes(set[0])) return [...path, set[0]].join(' → ');
    const onward = step.find((w) => !seen.has(w)) ?? step[0];
    if (seen.has(onward)) return [...path, onward].join(' → ');
    path.push(onward);
    seen.add(onward);
  }
}

const graph = importGraph([SRC]);
const everything = importGraph(IMPORTERS);

describe('the import graph of src', () => {
  it('reads every file of src, test, bench and scripts', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/upstream/server.ts')).toContain('src/upstream/routes/index.ts');
    expect(graph.get('src/upstream/routes/spaces.ts')).toContain('src/upstream/domain/spaces.ts');
    expect(everything.get('test/helpers/upstream.ts')).toContain('src/upstream/server.ts');
    expect(everything.has('bench/seed.ts')).toBe(true);
  });

  it('has no import cycle (type-only imports aside)', () => {
    const known = KNOWN_CYCLES.map((set) => new Set(set));
    const found = cycles(graph);
    const unknown = found.filter((set) => !known.some((k) => set.every((f) => k.has(f))));
    expect(unknown.map((set) => `${cyclePath(graph, set)} (${set.length} files: ${set.join(', ')})`)).toEqual([]);
    const stale = KNOWN_CYCLES.filter((k) => !found.some((set) => set.some((f) => k.includes(f))));
    expect(stale, 'these known cycles are gone: remove them from KNOWN_CYCLES').toEqual([]);
    expect(KNOWN_CYCLES.flat().filter((f) => f.startsWith('src/upstream/'))).toEqual([]);
  });

  it('routes are imported only by routes: shared logic lives in the domain layer below them', () => {
    const isRoute = (f: string) => f.startsWith('src/upstream/routes/');
    const offending = [...everything].flatMap(([file, targets]) =>
      targets
        .filter((t) => isRoute(t) && !isRoute(file) && !(file === 'src/upstream/server.ts' && t === 'src/upstream/routes/index.ts'))
        .map((t) => `${file} → ${t}`),
    );
    expect(offending).toEqual([]);
    const routeToRoute = [...everything].flatMap(([file, targets]) =>
      isRoute(file) && !file.endsWith('/index.ts') ? targets.filter(isRoute).map((t) => `${file} → ${t}`) : [],
    );
    expect(routeToRoute).toEqual([]);
  });

  it('the gateway, the schema and the REST client never import the embedded upstream', () => {
    const offending = [...graph].flatMap(([file, targets]) =>
      /^src\/(gateway|schema|rest)\//.test(file) ? targets.filter((t) => t.startsWith('src/upstream/')).map((t) => `${file} → ${t}`) : [],
    );
    expect(offending).toEqual([]);
  });

  it('the schema and the REST client never import the gateway (it composes them, not the other way round)', () => {
    const offending = [...graph].flatMap(([file, targets]) =>
      /^src\/(schema|rest)\//.test(file) ? targets.filter((t) => t.startsWith('src/gateway/')).map((t) => `${file} → ${t}`) : [],
    );
    expect(offending).toEqual([]);
  });
});
