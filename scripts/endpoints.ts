/**
 * The endpoint list of the REST API: every endpoint table of the seed (section "## Endpoints",
 * including the changelog's site operations) plus the official extras the embedded upstream serves
 * (API.md, "The embedded upstream"). The seed's part is committed (scripts/seedEndpoints.json), so
 * the tests and `npm run routes` need no seed beside the checkout. `npm run endpoints` refreshes
 * that list when the seed is at hand (`../shared/seed/`, or `SEED_DIR`) and writes
 * docs/ENDPOINTS.md: each endpoint with the upstream test files that call it and the GraphQL field
 * or mutations that serve it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { matchesTemplate, scanFiles } from './endpointCoverage.js';
import { graphCoordinates } from './graphMap.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  method: Method;
  /** Full path template relative to `/v1`, parameters as `{name}`. */
  path: string;
  /** The `###` section of the seed it comes from, or `Official extras`. */
  section: string;
}

/** Where CI and the workplace keep the seed: `../shared/seed/` beside the repository (`SEED_DIR` elsewhere). */
export const SEED_DIR = process.env.SEED_DIR
  ? `${process.env.SEED_DIR.replace(/\/$/, '')}/`
  : fileURLToPath(new URL('../../shared/seed/', import.meta.url));

/** The seed's endpoints as `npm run endpoints` last parsed them: committed, so nothing else needs the seed. */
export const SEED_ENDPOINTS_FILE = fileURLToPath(new URL('./seedEndpoints.json', import.meta.url));

export const EXTRAS_SECTION = 'Official extras';

/**
 * Official endpoints outside the seed that make the graph navigable (API.md, "The embedded
 * upstream"). A REST path the gateway or the table calls that the seed does not name goes here;
 * then `npm run routes` (metric labels) and `npm run endpoints` (docs/ENDPOINTS.md).
 */
export const OFFICIAL_EXTRAS: Array<[Method, string]> = [
  ['GET', '/user'],
  ['GET', '/users/{userId}'],
  ['GET', '/orgs'],
  ['GET', '/orgs/{organizationId}'],
  ['GET', '/orgs/{organizationId}/sites'],
  ['GET', '/orgs/{organizationId}/sites/{siteId}'],
];

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** The changelog's `any` row (publishing/auth): a settings resource that is read and changed. */
const ANY_METHOD: Method[] = ['GET', 'PATCH'];

/** The single seed file (`*.txt`) in SEED_DIR; throws with a clear message when it is missing. */
export function seedFile(dir = SEED_DIR): string {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.txt')) : [];
  if (files.length !== 1) {
    throw new Error(
      `Expected exactly one seed .txt file in ${dir} (the repository's ../shared/seed/, or SEED_DIR), found ${files.length ? files.join(', ') : 'none'}`,
    );
  }
  return dir + files[0];
}

/** Whether the seed is at hand (it is only needed to refresh the committed list). */
export const seedPresent = (dir = SEED_DIR): boolean => existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.txt'));

/** The seed's endpoints read from the seed itself. */
export const seedEndpoints = (dir = SEED_DIR): Endpoint[] => parseSeed(readFileSync(seedFile(dir), 'utf8'));

/** The committed list of the seed's endpoints (scripts/seedEndpoints.json). */
export const committedSeedEndpoints = (): Endpoint[] => JSON.parse(readFileSync(SEED_ENDPOINTS_FILE, 'utf8')) as Endpoint[];

/** The text of scripts/seedEndpoints.json: one endpoint a line, in seed order. */
export const seedEndpointsSource = (endpoints: Endpoint[]): string =>
  `[\n${endpoints.map((e) => `  ${JSON.stringify(e)}`).join(',\n')}\n]\n`;

/** Every endpoint of the seed (the committed list, or the seed in `dir`) and the official extras, without duplicates, in seed order. */
export function loadEndpoints(dir?: string): Endpoint[] {
  const seed = dir === undefined ? committedSeedEndpoints() : seedEndpoints(dir);
  const extras = OFFICIAL_EXTRAS.map(([method, path]) => ({ method, path, section: EXTRAS_SECTION }));
  return unique([...seed, ...extras]);
}

/** The endpoints of the seed's "## Endpoints" chapter, section by section. */
export function parseSeed(text: string): Endpoint[] {
  const endpoints: Endpoint[] = [];
  for (const { title, lines } of sections(endpointsChapter(text))) {
    const bases = basesOf(lines);
    for (const line of lines) {
      const row = tableRow(line);
      if (!row) continue;
      for (const method of row.methods) {
        for (const path of expandPath(row.path, bases, title)) endpoints.push({ method, path, section: title });
      }
    }
  }
  return endpoints;
}

function endpointsChapter(text: string): string {
  const start = text.search(/^## Endpoints\s*$/m);
  if (start < 0) throw new Error('The seed has no "## Endpoints" chapter');
  const rest = text.slice(start + 1);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

function sections(chapter: string): Array<{ title: string; lines: string[] }> {
  return chapter
    .split(/^### /m)
    .slice(1)
    .map((block) => {
      const [title, ...lines] = block.split('\n');
      return { title: title.trim(), lines };
    });
}

/** Paths in backticks on a line starting with "Base"/"Bases" (with or without a colon). */
function basesOf(lines: string[]): string[] {
  const line = lines.find((l) => /^Bases?\b/.test(l.trim()));
  if (!line) return [];
  return [...line.matchAll(/`(\/[^`]*)`/g)].map((m) => normalizePath(m[1]));
}

function tableRow(line: string): { methods: Method[]; path: string } | null {
  const cells = line.split('|').map((c) => c.trim());
  if (cells.length < 4) return null;
  const [, method, path] = cells;
  if (method === 'any') return { methods: ANY_METHOD, path };
  return METHODS.has(method) ? { methods: [method as Method], path } : null;
}

/** Drops a parenthetical ("base (creates a team)"), expands `base`, normalizes parameters. */
function expandPath(raw: string, bases: string[], section: string): string[] {
  const path = raw.replace(/\s*\([^)]*\)\s*$/, '').trim();
  if (path.startsWith('/')) return [normalizePath(path)];
  const rest = path.match(/^base(\/.*)?$/);
  if (!rest) throw new Error(`Seed section "${section}": cannot read the path "${raw}"`);
  if (!bases.length) throw new Error(`Seed section "${section}": "${raw}" needs a Base line`);
  return bases.map((base) => normalizePath(base + (rest[1] ?? '')));
}

/** Parameters as `{name}` (also from `:name`), no trailing slash. */
export function normalizePath(path: string): string {
  const normalized = path
    .split('/')
    .map((seg) => seg.replace(/^:(\w+)$/, '{$1}').replace(/^\{\s*(\w+)\s*\}$/, '{$1}'))
    .join('/');
  return normalized.length > 1 ? normalized.replace(/\/$/, '') : normalized;
}

/** `METHOD /path`, the key the maps and the docs use. */
export function endpointKey(e: { method: string; path: string }): string {
  return `${e.method} ${e.path}`;
}

/** The template with parameter names erased, so `/a/{x}` and `/a/{y}` compare equal. */
export function templateShape(path: string): string {
  return normalizePath(path).replace(/\{[^}/]*\}/g, '{}');
}

function unique(endpoints: Endpoint[]): Endpoint[] {
  const seen = new Set<string>();
  return endpoints.filter((e) => !seen.has(endpointKey(e)) && seen.add(endpointKey(e)));
}

export const DOC_FILE = fileURLToPath(new URL('../docs/ENDPOINTS.md', import.meta.url));
const TEST_DIR = fileURLToPath(new URL('../test/upstream/', import.meta.url));

/**
 * Endpoints a test file really calls in a way the static scan cannot trace, with the reason.
 * Keys: `METHOD /path`; values: file names under test/upstream. Empty while the scan finds all.
 */
const COVERAGE_OVERRIDES: Record<string, string[]> = {};

export interface CoveredEndpoint extends Endpoint {
  /** File names under test/upstream whose REST calls reach the endpoint. */
  tests: string[];
  /** Schema coordinates that serve it (scripts/graphMap.ts). */
  graph: string[];
}

/** Every endpoint with its covering upstream test files and its GraphQL coordinates. */
export function coverage(endpoints = loadEndpoints()): CoveredEndpoint[] {
  const files = readdirSync(TEST_DIR)
    .filter((f) => f.endsWith('.test.ts'))
    .sort();
  const scans = scanFiles(files.map((f) => TEST_DIR + f));
  return endpoints.map((e) => {
    const key = endpointKey(e);
    const found = files.filter((f) =>
      scans.get(TEST_DIR + f)!.some((call) => call.method === e.method && matchesTemplate(call.path, e.path)),
    );
    const tests = [...new Set([...found, ...(COVERAGE_OVERRIDES[key] ?? [])])].sort();
    return { ...e, tests, graph: graphCoordinates(key) };
  });
}

/** The text of docs/ENDPOINTS.md. */
export function renderDoc(rows = coverage()): string {
  const extras = rows.filter((r) => r.section === EXTRAS_SECTION).length;
  const lines = [
    '# REST endpoints',
    '',
    'Every endpoint the embedded upstream serves: each endpoint table of the seed (the API description,',
    "`../shared/seed/*.txt`, including its changelog's site operations; parsed into",
    '`scripts/seedEndpoints.json`) plus the official extras named in API.md (`OFFICIAL_EXTRAS` in',
    '`scripts/endpoints.ts`). For each: the tests under `test/upstream/` that call it, and the GraphQL',
    'field or mutations that serve it (derived from the resource table by `scripts/graphMap.ts`).',
    '',
    'Generated by `npm run endpoints`; do not edit by hand (`test/endpoints/docs.test.ts` fails when',
    'this file is stale or when an endpoint has no test).',
    '',
    `${rows.length} endpoints: ${rows.length - extras} from the seed, ${extras} official extras.`,
  ];
  for (const section of [...new Set(rows.map((r) => r.section))]) {
    lines.push('', `## ${section}`, '', '| Method | Path | Tests | GraphQL |', '|---|---|---|---|');
    for (const r of rows.filter((x) => x.section === section)) lines.push(docRow(r));
  }
  return lines.join('\n') + '\n';
}

function docRow(r: CoveredEndpoint): string {
  const tests = r.tests.map((f) => `[${f.replace(/\.test\.ts$/, '')}](../test/upstream/${f})`).join(', ') || '**none**';
  const graph = r.graph.map((c) => `\`${c}\``).join(', ') || '**none**';
  return `| ${r.method} | \`${r.path}\` | ${tests} | ${graph} |`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // The seed, when at hand, refreshes the committed list; everything else reads that list.
  if (seedPresent()) {
    writeFileSync(SEED_ENDPOINTS_FILE, seedEndpointsSource(seedEndpoints()));
    console.log(`wrote ${SEED_ENDPOINTS_FILE}`);
  } else console.log(`no seed in ${SEED_DIR}: kept ${SEED_ENDPOINTS_FILE}`);
  writeFileSync(DOC_FILE, renderDoc());
  console.log(`wrote ${DOC_FILE}`);
}
