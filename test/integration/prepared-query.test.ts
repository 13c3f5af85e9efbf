import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountServices } from '../../src/accounts/services.js';
import { preparedQuery } from '../../src/db/prepared-query.js';
import { BACKENDS, testPlace, type TestPlace } from '../helpers/db.js';

/** Queries of the hot path, compiled once and run with each call's values, on every backend there is. */
describe.each(BACKENDS.filter((b) => b !== 'postgres+redis'))('preparedQuery on %s', (backend) => {
  let place: TestPlace;
  let s: AccountServices;

  beforeAll(async () => {
    place = await testPlace(backend);
    s = await place.open();
  });
  afterAll(async () => {
    await place?.cleanup();
  });

  const byEmail = preparedQuery((db, plan: string, from: string, to: string) =>
    db
      .selectFrom('accounts')
      .select(['email', 'plan'])
      // A constant among the arguments stays where it is.
      .where('role', '=', 'user')
      .where('plan', '=', plan)
      .where('email', '>=', from)
      .where('email', '<=', to)
      .orderBy('email'),
  );

  it('binds each call’s arguments in their places, around the query’s own constants', async () => {
    for (const [email, plan] of [
      ['pq-a@example.com', 'free'],
      ['pq-b@example.com', 'basic'],
      ['pq-c@example.com', 'free'],
      ['pq-d@example.com', 'free'],
    ] as const) {
      expect(await s.accounts.create({ email, plan })).toMatchObject({ ok: true });
    }
    await s.accounts.create({ email: 'pq-e@example.com', plan: 'free', role: 'operator' });
    const emails = async (...args: [string, string, string]) => (await byEmail(s.db.kysely, ...args)).map((r) => r.email);
    expect(await emails('free', 'pq-a', 'pq-z')).toEqual(['pq-a@example.com', 'pq-c@example.com', 'pq-d@example.com']);
    expect(await emails('free', 'pq-b', 'pq-d')).toEqual(['pq-c@example.com']);
    expect(await emails('basic', 'pq-a', 'pq-z')).toEqual(['pq-b@example.com']);
    expect(await emails('scale', 'pq-a', 'pq-z')).toEqual([]);
    // In a transaction too.
    await s.db.kysely.transaction().execute(async (trx) => {
      expect(await byEmail(trx, 'basic', 'pq-a', 'pq-z')).toEqual([{ email: 'pq-b@example.com', plan: 'basic' }]);
    });
  });

  it('refuses a query that does not bind each argument exactly once', async () => {
    const twice = preparedQuery((db, id: string) => db.selectFrom('accounts').select('id').where('id', '=', id).where('email', '=', id));
    await expect(twice(s.db.kysely, 'x')).rejects.toThrow(/exactly once/);
    const never = preparedQuery((db, _id: string) => db.selectFrom('accounts').select('id'));
    await expect(never(s.db.kysely, 'x')).rejects.toThrow(/exactly once/);
  });
});
