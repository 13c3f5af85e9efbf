import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/accounts/password.js';
import { dayOf, periodOf, secondsUntil } from '../../src/usage/period.js';

describe('passwords', () => {
  it('hashes with scrypt and a fresh salt, and verifies only the same password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('refuses accounts without a password and malformed hashes (after hashing anyway)', async () => {
    expect(await verifyPassword('anything at all', null)).toBe(false);
    expect(await verifyPassword('anything at all', 'md5$abc')).toBe(false);
  });

  it('treats Unicode compositions of the same password alike', async () => {
    const hash = await hashPassword('caf\u00e9-password');
    expect(await verifyPassword('cafe\u0301-password', hash)).toBe(true);
  });
});

describe('quota periods', () => {
  it('are calendar months in UTC', () => {
    const p = periodOf(new Date('2030-12-31T23:59:59.999Z'));
    expect(p.id).toBe('2030-12');
    expect(p.start.toISOString()).toBe('2030-12-01T00:00:00.000Z');
    expect(p.end.toISOString()).toBe('2031-01-01T00:00:00.000Z');
    expect(periodOf(new Date('2031-01-01T00:00:00.000Z')).id).toBe('2031-01');
    expect(dayOf(new Date('2030-02-28T23:00:00-05:00'))).toBe('2030-03-01');
  });

  it('count Retry-After in whole seconds, never 0', () => {
    const now = new Date('2030-01-01T00:00:00.000Z');
    expect(secondsUntil(new Date('2030-01-01T00:00:00.400Z'), now)).toBe(1);
    expect(secondsUntil(new Date('2030-01-01T00:01:00.001Z'), now)).toBe(61);
    expect(secondsUntil(new Date('2029-01-01T00:00:00.000Z'), now)).toBe(1);
  });
});
