/**
 * A small declarative validator. Rules are declared once (src/api/rules.ts) and used by the
 * embedded upstream (request bodies and queries) and by the gateway (mutation inputs), so both
 * reject the same input with a message that names the field and the rule.
 */
type Shape =
  | { kind: 'string'; min?: number; max?: number; pattern?: RegExp; format?: 'uri'; nullable?: boolean }
  | { kind: 'enum'; values: readonly string[]; nullable?: boolean }
  | { kind: 'boolean'; nullable?: boolean }
  | { kind: 'number'; int?: boolean; min?: number; max?: number; nullable?: boolean }
  | { kind: 'array'; of: Rule; min?: number; max?: number; nullable?: boolean }
  | { kind: 'object'; fields: Fields; nullable?: boolean; open?: boolean }
  | { kind: 'map'; of: Rule; nullable?: boolean }
  | { kind: 'any'; nullable?: boolean };

/** A shape plus `refine`, for what a shape cannot say (e.g. "exactly one of url, text"): it gets
 * the non-null value once the shape is valid and returns the broken rule, or undefined. */
export type Rule = Shape & {
  // A method, so a refinement may declare the shape its rule guarantees (`(p: {type: …}) => …`).
  refine?(value: unknown): string | undefined;
};

export type Field = Rule & { required?: boolean };
export type Fields = Record<string, Field>;

/** A rule as declared (its kind, values and nullability kept, so `ValueOf` can read them). */
export const rule = <const R extends Rule>(r: R): R => r;
/** A field map as declared (see `rule`). */
export const fields = <const F extends Fields>(f: F): F => f;
/** The field must be present. */
export const required = <R extends Rule>(r: R): R & { required: true } => ({ ...r, required: true });
/** The value may be null. */
export const nullable = <R extends Rule>(r: R): R & { nullable: true } => ({ ...r, nullable: true });

/**
 * The value a rule accepts, as a type (what fastify's `Static<typeof Schema>` is to a schema): a
 * string, one of an enum's values, a list, an object of its fields; `null` too when nullable. A
 * rule whose kind is not known where it is declared (a plain `Rule`) accepts `unknown`.
 */
export type ValueOf<R> =
  | (R extends { nullable: true } ? null : never)
  | (R extends { kind: 'string' }
      ? string
      : R extends { kind: 'enum'; values: readonly (infer V)[] }
        ? V
        : R extends { kind: 'boolean' }
          ? boolean
          : R extends { kind: 'number' }
            ? number
            : R extends { kind: 'array'; of: infer O }
              ? Array<ValueOf<O>>
              : R extends { kind: 'object'; fields: infer F }
                ? BodyOf<F>
                : R extends { kind: 'map'; of: infer O }
                  ? Record<string, ValueOf<O>>
                  : unknown);

type RequiredKeys<F> = { [K in keyof F]: F[K] extends { required: true } ? K : never }[keyof F];

/** The object a field map accepts: its required fields, and the others optional (`BodyOf<typeof bodies['team.create']>`). */
export type BodyOf<F> = { [K in RequiredKeys<F>]: ValueOf<F[K]> } & { [K in Exclude<keyof F, RequiredKeys<F>>]?: ValueOf<F[K]> };

/** Where a field map keeps its rule across fields (a symbol: not a field, not listed by `Object.keys`). */
const ACROSS = Symbol('rule across fields');

/**
 * Adds to a field map a rule no single field can say (e.g. "users or teams is required"): `check`
 * gets the object once every field is valid and returns the field to name and the broken rule.
 */
export function acrossFields<F extends Fields>(fields: F, check: (value: Record<string, unknown>) => [string, string] | undefined): F {
  return Object.assign(fields, { [ACROSS]: check });
}

/** Half of a UTF-16 surrogate pair without its other half. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export class ValidationError extends Error {
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(`${field}: ${rule}`);
  }
}

const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** Throws ValidationError for the first broken rule. */
export function checkValue(rule: Rule, value: unknown, path: string): void {
  checkShape(rule, value, path);
  const broken = value === null ? undefined : rule.refine?.(value);
  if (broken) throw new ValidationError(path, broken);
}

function checkShape(rule: Rule, value: unknown, path: string): void {
  if (value === null) {
    if (rule.nullable) return;
    throw new ValidationError(path, 'must not be null');
  }
  switch (rule.kind) {
    case 'any':
      return;
    case 'string': {
      if (typeof value !== 'string') throw new ValidationError(path, `must be a string, got ${describe(value)}`);
      // JSON may escape half of a UTF-16 pair alone (`"\ud800"`): no character, and no URL or text can hold it.
      if (LONE_SURROGATE.test(value)) throw new ValidationError(path, 'must be valid Unicode text (it holds half of a surrogate pair)');
      const len = [...value].length;
      if (rule.min !== undefined && len < rule.min) throw new ValidationError(path, `must be at least ${rule.min} characters long`);
      if (rule.max !== undefined && len > rule.max) throw new ValidationError(path, `must be at most ${rule.max} characters long`);
      if (rule.pattern && !rule.pattern.test(value)) throw new ValidationError(path, `must match the pattern ${rule.pattern.source}`);
      if (rule.format === 'uri' && !isUri(value)) throw new ValidationError(path, 'must be an absolute URI');
      return;
    }
    case 'enum':
      if (typeof value !== 'string' || !rule.values.includes(value))
        throw new ValidationError(path, `must be one of ${rule.values.join(', ')}`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw new ValidationError(path, `must be a boolean, got ${describe(value)}`);
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValidationError(path, `must be a number, got ${describe(value)}`);
      if (rule.int && !Number.isInteger(value)) throw new ValidationError(path, 'must be an integer');
      if (rule.min !== undefined && value < rule.min) throw new ValidationError(path, `must be at least ${rule.min}`);
      if (rule.max !== undefined && value > rule.max) throw new ValidationError(path, `must be at most ${rule.max}`);
      return;
    case 'array':
      if (!Array.isArray(value)) throw new ValidationError(path, `must be an array, got ${describe(value)}`);
      if (rule.min !== undefined && value.length < rule.min)
        throw new ValidationError(path, `must have at least ${rule.min} item${rule.min === 1 ? '' : 's'}`);
      if (rule.max !== undefined && value.length > rule.max) throw new ValidationError(path, `must have at most ${rule.max} items`);
      value.forEach((item, i) => checkValue(rule.of, item, join(path, i)));
      return;
    case 'object':
      if (typeof value !== 'object' || Array.isArray(value)) throw new ValidationError(path, `must be an object, got ${describe(value)}`);
      checkFields(rule.fields, value as Record<string, unknown>, path, rule.open);
      return;
    case 'map':
      if (typeof value !== 'object' || Array.isArray(value)) throw new ValidationError(path, `must be an object, got ${describe(value)}`);
      for (const [k, v] of Object.entries(value as object)) checkValue(rule.of, v, join(path, k));
      return;
  }
}

/** Checks an object against field rules; unknown fields are rejected unless `open`. */
export function checkFields(fields: Fields, value: Record<string, unknown>, path = '', open = false): void {
  for (const [key, rule] of Object.entries(fields)) {
    const v = value[key];
    if (v === undefined) {
      if (rule.required) throw new ValidationError(join(path, key), 'is required');
      continue;
    }
    checkValue(rule, v, join(path, key));
  }
  if (!open) {
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(fields, key)) throw new ValidationError(join(path, key), 'is not a known field');
    }
  }
  const broken = (fields as { [ACROSS]?: Parameters<typeof acrossFields>[1] })[ACROSS]?.(value);
  if (broken) throw new ValidationError(join(path, broken[0]), broken[1]);
}

/**
 * An absolute URI (RFC 3986): a scheme, then only URI characters, `%` only in valid escapes,
 * brackets only around an IPv6 host. `new URL` alone takes spaces, non-ASCII and `|` (and fixes
 * them up), which the OpenAPI `uri` format of the responses that echo the value does not.
 */
const URI_SYNTAX = /^[a-zA-Z][a-zA-Z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const IPV6_HOST = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/(?:[^/?#@]*@)?)\[[0-9A-Fa-f:.]+\]/;

function isUri(value: string): boolean {
  if (!URI_SYNTAX.test(value.replace(IPV6_HOST, '$1host'))) return false;
  try {
    return Boolean(new URL(value).protocol);
  } catch {
    return false;
  }
}
