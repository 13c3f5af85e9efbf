import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { postgresUrl } from '../helpers/db.js';

describe.skipIf(!postgresUrl)('Postgres connection lost', () => {
  it('an idle pooled connection the server ends (restart, failover) does not end the process; the next query connects afresh', async () => {
    const schema = `shutter_reconnect_${randomBytes(5).toString('hex')}`;
    const db = await openDatabase({ url: postgresUrl!, sqliteFile: '', schema });
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db.kysely);
      const warned = new Promise<Error>((resolve) => {
        const listener = (warning: Error & { code?: string }) => {
          if (warning.code !== 'SHUTTER_POSTGRES') return;
          process.off('warning', listener);
          resolve(warning);
        };
        process.on('warning', listener);
      });
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // Without a listener on the pool, this 'error' would be an uncaught exception in this process.
      expect((await warned).message).toMatch(/Postgres connection lost/);
      const again = await sql<{ one: number }>`SELECT 1 AS one`.execute(db.kysely);
      expect(again.rows[0]!.one).toBe(1);
    } finally {
      await db.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});
