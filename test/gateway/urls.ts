/**
 * Typed REST `urls` in tests: `urls(type)` is the selection of every key of `<type>Urls`, and
 * `restUrls(type, json.urls)` what the graph shows for a REST `urls` object (absent keys null).
 */
import { isObjectType } from 'graphql';
import { schema } from '../../src/schema/index.js';

function keysOf(type: string): string[] {
  const t = schema.getType(`${type}Urls`);
  if (!isObjectType(t)) throw new Error(`no type ${type}Urls`);
  return Object.keys(t.getFields());
}

export const urls = (type: string) => `urls { ${keysOf(type).join(' ')} }`;

export const restUrls = (type: string, json: Record<string, string> | undefined | null) =>
  json ? Object.fromEntries(keysOf(type).map((k) => [k, json[k] ?? null])) : null;
