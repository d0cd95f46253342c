// Web sign-in sessions in the database, so a sign-in through one daemon works through every other (web/sessions.ts).
// A session is kept under the SHA-256 of its id: the id is the cookie, and the table should not hold credentials.
import type { Sql } from './connection.js';
import { sessionDigest, SESSIONS_PER_AGENT, type SharedSessions } from '../shared-sessions.js';

export class PostgresSessions implements SharedSessions {
  constructor(private readonly sql: Sql) {}

  async save(id: string, tokenHash: Buffer, expiresAt: number): Promise<void> {
    // Expired sessions go as new ones come, as in memory: an idle board keeps no timer.
    await this.sql`DELETE FROM web_sessions WHERE expires_ms <= ${Date.now()}`;
    // The token's oldest sessions past the cap end with this one (web/sessions.ts): its own, never another agent's.
    await this.sql`
      DELETE FROM web_sessions WHERE id_sha256 IN (
        SELECT id_sha256 FROM web_sessions WHERE token_sha256 = ${tokenHash} ORDER BY expires_ms DESC, id_sha256 OFFSET ${SESSIONS_PER_AGENT - 1})`;
    await this.sql`INSERT INTO web_sessions (id_sha256, token_sha256, expires_ms) VALUES (${sessionDigest(id)}, ${tokenHash}, ${expiresAt})`;
  }

  async load(id: string): Promise<{ tokenHash: Buffer; expiresAt: number } | undefined> {
    const [row] = await this.sql<Array<{ token_sha256: Buffer; expires_ms: number }>>`SELECT token_sha256, expires_ms FROM web_sessions WHERE id_sha256 = ${sessionDigest(id)} AND expires_ms > ${Date.now()}`;
    return row ? { tokenHash: Buffer.from(row.token_sha256), expiresAt: Number(row.expires_ms) } : undefined;
  }

  async remove(id: string): Promise<void> {
    await this.sql`DELETE FROM web_sessions WHERE id_sha256 = ${sessionDigest(id)}`;
  }
}
