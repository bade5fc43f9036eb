import { checkValue, ValidationError, type Rule } from '../api/validate.js';
import { badRequest } from './errors.js';

/** Typed, validated access to query parameters; a bad value is a 400 that names the parameter. */
export class Query {
  constructor(private readonly params: URLSearchParams) {}

  has(name: string): boolean {
    return this.params.has(name);
  }

  string(name: string, rule?: Rule): string | undefined {
    const v = this.params.get(name);
    if (v === null) return undefined;
    if (rule) check(rule, v, name);
    return v;
  }

  requiredString(name: string, rule?: Rule): string {
    const v = this.string(name, rule);
    if (v === undefined) throw badRequest(`${name}: is required`);
    return v;
  }

  enum<T extends string>(name: string, values: readonly T[], fallback: T): T;
  enum<T extends string>(name: string, values: readonly T[]): T | undefined;
  enum<T extends string>(name: string, values: readonly T[], fallback?: T): T | undefined {
    const v = this.params.get(name);
    if (v === null) return fallback;
    if (!values.includes(v as T)) throw badRequest(`${name}: must be one of ${values.join(', ')}`);
    return v as T;
  }

  boolean(name: string, fallback: boolean): boolean;
  boolean(name: string): boolean | undefined;
  boolean(name: string, fallback?: boolean): boolean | undefined {
    const v = this.params.get(name);
    if (v === null) return fallback;
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw badRequest(`${name}: must be true or false`);
  }

  int(name: string, min: number, max: number): number | undefined {
    const v = this.params.get(name);
    if (v === null) return undefined;
    const n = Number(v);
    if (!/^-?\d+$/.test(v) || n < min || n > max) throw badRequest(`${name}: must be an integer from ${min} to ${max}`);
    return n;
  }
}

function check(rule: Rule, value: unknown, name: string) {
  try {
    checkValue(rule, value, name);
  } catch (e) {
    if (e instanceof ValidationError) throw badRequest(e.message);
    throw e;
  }
}
