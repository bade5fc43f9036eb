/**
 * OpenAPI conformance check: every JSON response the REST client receives is validated against
 * the response schema of the same operation in @gitbook/api's spec/openapi.json (OpenAPI 3.1,
 * validated with Ajv's JSON Schema 2020-12 dialect).
 *
 * Rules:
 * - `required` is relaxed everywhere (the seed omits some fields the hosted API now has); types,
 *   enums, formats, patterns and lengths of the fields that are present stay strict.
 * - Error statuses (>= 400) are checked against our error body `{error: {code: status, message}}`.
 * - Operations the spec does not describe (the seed wins) are skipped and listed by
 *   uncheckedOperations(); KNOWN_DIFFERENCES documents seed-vs-spec differences we accept.
 * The spec is loaded lazily and each validator is compiled on first use (per operation + status).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** ajv-formats is CommonJS: under ESM its default import is the plugin itself (typed as the module). */
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule.default;

type Json = Record<string, any>;

const SPEC_ID = 'https://gitbook.test/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
/** Formats the spec uses that ajv-formats checks; any other format found is a vendor one (ignored). */
const CHECKED_FORMATS = ['date-time', 'date', 'uri', 'email', 'uuid', 'byte', 'int32'];

/** The seed's translation settings (`translation-settings`, title, languages) are not the spec's `Translation` resource. */
const TRANSLATIONS = 'seed: object translation-settings with title and languages; spec: a Translation run';

/**
 * Known seed-vs-spec differences where the seed wins: responses of these operations are not
 * checked against the spec. Each entry names the spec template, the method (lower case) and why.
 */
export const KNOWN_DIFFERENCES: ReadonlyArray<{ method: string; template: string; reason: string }> = [
  ...(['get', 'post'] as const).map((method) => ({ method, template: '/orgs/{organizationId}/translations', reason: TRANSLATIONS })),
  ...(['get', 'put'] as const).map((method) => ({
    method,
    template: '/orgs/{organizationId}/translations/{translationId}',
    reason: TRANSLATIONS,
  })),
];

interface Operation {
  method: string;
  template: string;
  id: string;
  responses: Json;
}

interface Template {
  path: string;
  segments: string[];
  /** The last segment is a `{…Path}` parameter: it takes the rest of the path (slashes included). */
  greedy: boolean;
  literals: number;
}

let loaded: { spec: Json; ajv: Ajv2020; templates: Template[] } | undefined;
const validators = new Map<string, ValidateFunction>();
const unchecked = new Set<string>();

/** Throws when `body` does not conform to the response schema of `method path` for `status`. */
export function checkResponse(method: string, path: string, status: number, body: unknown): void {
  if (body === undefined || status === 204) return;
  const pathname = path.split('?')[0]!;
  if (status >= 400) return validateWith(errorValidator(status), body, { method, path: pathname, status, id: 'error' });
  const op = findOperation(method, pathname);
  if (!op) {
    unchecked.add(`${method.toUpperCase()} ${pathname}`);
    return;
  }
  if (KNOWN_DIFFERENCES.some((d) => d.method === op.method && d.template === op.template)) return;
  const validate = responseValidator(op, status);
  if (validate) validateWith(validate, body, { method, path: pathname, status, id: op.id });
}

/** `METHOD path` of every response seen whose operation the spec does not describe. */
export function uncheckedOperations(): string[] {
  return [...unchecked].sort();
}

function validateWith(validate: ValidateFunction, body: unknown, at: { method: string; path: string; status: number; id: string }) {
  if (validate(body)) return;
  throw new Error(
    `OpenAPI conformance: ${at.method.toUpperCase()} ${at.path} -> ${at.status} (operation ${at.id}) does not match the spec:\n` +
      formatErrors(validate.errors ?? []) +
      `\nbody: ${snippet(body)}`,
  );
}

function formatErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 20)
    .map((e) => `  ${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    .join('\n');
}

function snippet(body: unknown): string {
  const text = JSON.stringify(body);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

// ---------------------------------------------------------------------------------------------
// Spec loading and the relaxed copy of its schemas

function load() {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const spec = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8')) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv, CHECKED_FORMATS as any);
  for (const format of formatsIn(spec)) if (!ajv.formats[format]) ajv.addFormat(format, true);
  ajv.addSchema({ $id: SPEC_ID, components: { schemas: relaxMap(spec.components?.schemas ?? {}) } });
  loaded = { spec, ajv, templates: Object.keys(spec.paths).map(toTemplate) };
  return loaded;
}

function formatsIn(spec: Json): Set<string> {
  const found = new Set<string>();
  JSON.stringify(spec, (key, value) => {
    if (key === 'format' && typeof value === 'string') found.add(value);
    return value;
  });
  return found;
}

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SCHEMA_ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** OpenAPI annotations with no validation meaning (dropped so no Ajv option can act on them). */
const DROPPED = ['discriminator', 'example', 'examples', 'readOnly', 'writeOnly', 'xml', 'externalDocs', 'nullable'];

function relaxMap(map: Json): Json {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, relax(v)]));
}

/**
 * A relaxed copy of one schema: no `required`, OpenAPI-only keywords dropped, `nullable: true`
 * turned into a `null` type, local `$ref`s made absolute (they resolve in the SPEC_ID document).
 * `oneOf` becomes `anyOf`: without `required`, several branches of a oneOf often match the same
 * value (e.g. two object variants that differ only by required fields), which oneOf rejects.
 */
function relax(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'required' && Array.isArray(value)) continue;
    if (DROPPED.includes(key) || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.startsWith('#/') ? SPEC_ID + value : value;
    else if (SCHEMA_MAPS.includes(key)) out[key] = relaxMap(value);
    else if (SCHEMA_ONE.includes(key)) out[key] = relax(value);
    else if (SCHEMA_LISTS.includes(key)) out[key] = (value as unknown[]).map(relax);
    else out[key] = value;
  }
  if (out.oneOf) {
    const anyOf = out.oneOf;
    delete out.oneOf;
    if (out.anyOf) out.allOf = [...(out.allOf ?? []), { anyOf: out.anyOf }, { anyOf }];
    else out.anyOf = anyOf;
  }
  if ((schema as Json).nullable === true) allowNull(out);
  return out;
}

function allowNull(out: Json) {
  if (out.type) out.type = [...new Set([...[out.type].flat(), 'null'])];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
}

// ---------------------------------------------------------------------------------------------
// Operation lookup

function toTemplate(path: string): Template {
  const segments = path.split('/').filter(Boolean);
  const last = segments[segments.length - 1] ?? '';
  return {
    path,
    segments,
    greedy: /^\{\w+Path\}$/.test(last),
    literals: segments.filter((s) => !isParam(s)).length,
  };
}

function isParam(segment: string): boolean {
  return segment.startsWith('{') && segment.endsWith('}');
}

function matches(template: Template, segments: string[]): boolean {
  const n = template.segments.length;
  if (template.greedy ? segments.length < n : segments.length !== n) return false;
  return template.segments.every((t, i) => isParam(t) || t === segments[i]);
}

/** Most literal segments first; on a tie, the template whose first literal comes earlier; greedy last. */
function moreSpecific(a: Template, b: Template): number {
  if (a.literals !== b.literals) return b.literals - a.literals;
  if (a.greedy !== b.greedy) return a.greedy ? 1 : -1;
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const pa = isParam(a.segments[i]!);
    if (pa !== isParam(b.segments[i]!)) return pa ? 1 : -1;
  }
  return 0;
}

function findOperation(method: string, pathname: string): Operation | undefined {
  const { spec, templates } = load();
  const m = method.toLowerCase();
  if (!METHODS.includes(m)) return undefined;
  const segments = pathname.split('/').filter(Boolean).map(decodeSegment);
  const candidates = templates.filter((t) => spec.paths[t.path][m] && matches(t, segments)).sort(moreSpecific);
  const template = candidates[0];
  if (!template) return undefined;
  const op = spec.paths[template.path][m] as Json;
  return { method: m, template: template.path, id: op.operationId ?? `${m} ${template.path}`, responses: op.responses ?? {} };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

// ---------------------------------------------------------------------------------------------
// Validators

/** The validator of a success response, or undefined when the spec gives it no JSON body. */
function responseValidator(op: Operation, status: number): ValidateFunction | undefined {
  const key = `${op.method} ${op.template} ${status}`;
  const cached = validators.get(key);
  if (cached) return cached;
  const response = responseFor(op, status);
  if (!response) {
    throw new Error(
      `OpenAPI conformance: ${op.method.toUpperCase()} ${op.template} (operation ${op.id}) does not document status ${status}`,
    );
  }
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return undefined;
  const validate = load().ajv.compile(relax(schema) as Json);
  validators.set(key, validate);
  return validate;
}

function responseFor(op: Operation, status: number): Json | undefined {
  const r = op.responses;
  const response = r[String(status)] ?? r[`${String(status)[0]}XX`] ?? r.default;
  return response?.$ref ? resolveRef(response.$ref) : response;
}

function resolveRef(ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: Json, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], load().spec);
}

function errorValidator(status: number): ValidateFunction {
  const key = `error ${status}`;
  const cached = validators.get(key);
  if (cached) return cached;
  const validate = load().ajv.compile({
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: { code: { const: status }, message: { type: 'string', minLength: 1 } },
      },
    },
  });
  validators.set(key, validate);
  return validate;
}
