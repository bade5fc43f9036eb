import { createHash } from 'node:crypto';
import type { UserRow } from './context.js';
import type { Db } from './db/index.js';
import { unauthorized } from './errors.js';
import { newToken } from './ids.js';

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Issues a token bound to a user; only its hash is stored. */
export function issueToken(db: Db, userId: string, now: string, label = 'api'): string {
  const token = newToken();
  db.prepare('INSERT INTO tokens (token_hash, user_id, label, created_at) VALUES (?, ?, ?, ?)').run(hashToken(token), userId, label, now);
  return token;
}

/** The user behind an `Authorization: Bearer …` header: null when absent, 401 when unknown or malformed. */
export function authenticate(db: Db, header: string | undefined): UserRow | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized('The Authorization header must be "Bearer <token>"');
  const user = db.prepare('SELECT u.* FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?').get(hashToken(m[1])) as
    UserRow | undefined;
  if (!user) throw unauthorized('The access token is invalid');
  return user;
}
