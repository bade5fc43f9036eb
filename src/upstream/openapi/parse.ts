import { parse as parseYaml } from 'yaml';

export type ParseResult = { ok: true; version: string; title: string } | { ok: false; message: string };

/**
 * Reads an OpenAPI document from JSON or YAML text and checks what makes it one: a version field
 * (`openapi: 3.x.y` or `swagger: "2.0"`), an `info` object, and `paths` (3.1 also accepts only
 * `components` or `webhooks`).
 */
export function parseOpenApi(text: string): ParseResult {
  let doc: unknown;
  try {
    doc = readText(text);
  } catch (e) {
    return { ok: false, message: `Not valid JSON or YAML: ${firstLine((e as Error).message)}` };
  }
  if (!isObject(doc)) return { ok: false, message: 'The document is not an object' };
  const version = versionOf(doc);
  if (!version) return { ok: false, message: 'Missing a version field: `openapi` (3.x.y) or `swagger` ("2.0")' };
  if (!isObject(doc.info)) return { ok: false, message: 'Missing the `info` object' };
  if (doc.paths !== undefined && !isObject(doc.paths)) return { ok: false, message: '`paths` must be an object' };
  const hasContent = isObject(doc.paths) || (version.startsWith('3.1') && (isObject(doc.components) || isObject(doc.webhooks)));
  if (!hasContent) return { ok: false, message: 'Missing the `paths` object' };
  const title = typeof doc.info.title === 'string' ? doc.info.title : '';
  return { ok: true, version, title };
}

function readText(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) return JSON.parse(text);
  return parseYaml(text);
}

function versionOf(doc: Record<string, unknown>): string | undefined {
  if (typeof doc.openapi === 'string' && /^3\.\d+\.\d+/.test(doc.openapi)) return doc.openapi;
  if (doc.swagger === '2.0') return '2.0';
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const firstLine = (s: string) => s.split('\n')[0];
