/**
 * Shipped migrations never change: a database migrated by an earlier release must have the schema
 * a new one gets. Their SQL is pinned here (SHA-256 of each migration's text, as written by
 * src/upstream/db/migrations, helpers included); a change of schema is a new migration.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, schemaVersion } from '../../src/upstream/db/index.js';
import { migrations } from '../../src/upstream/db/migrations/index.js';

const SHIPPED: Record<number, string> = {
  1: 'cb9334a12714c2ddee4bc2842b49e63eef738c149f906e9be1b1e16748984895',
  2: 'c2c276dc698608ef84375269214342f08f1f472fd7404e3c76ce0bcab944d19d',
  3: '31137703ea4e250ead5ce6a1d7be2bde0276a33863d90a63ea59435e6f5dcf66',
  4: '1cc782dd0eb91de8f41ea46f4774735c6dcc9d6a1644ff3c515c77c598ecd6ac',
  5: '34afd43d9014b3a87584c4b2c495354055c912c2b31fcd41fa0e7a7dda4402cc',
  6: '1d971862a13681533a48d928d8c6a7d2e7559b584b21a01eb3e6ad2c6cb429ee',
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('schema migrations', () => {
  it('keeps the SQL of every shipped migration as it shipped', () => {
    const shipped = migrations.filter((m) => m.version in SHIPPED);
    expect(shipped.map((m) => m.version)).toEqual(Object.keys(SHIPPED).map(Number));
    expect(Object.fromEntries(shipped.map((m) => [m.version, sha256(m.sql)]))).toEqual(SHIPPED);
  });

  it('numbers migrations in order and brings a new database to the last version, once', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    const db = openDatabase(':memory:');
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion());
      expect(migrate(db)).toBe(0);
    } finally {
      db.close();
    }
  });
});
