import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS, loadPlans, Plans } from '../../src/accounts/plans.js';
import { ConfigError } from '../../src/errors/config-error.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-plans-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const file = async (name: string, content: string) => {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
};

describe('plans', () => {
  it("defaults to DESIGN.md's table", () => {
    expect(new Plans().all().map((p) => [p.name, p.maxKeys, p.monthlyQuota, p.ratePerMinute, p.concurrency])).toEqual([
      ['free', 1, 100, 10, 2],
      ['basic', 5, 2000, 40, 5],
      ['growth', 20, 10000, 80, 10],
      ['scale', 100, 50000, 150, 25],
    ]);
    expect(loadPlans(undefined).all()).toEqual(DEFAULT_PLANS);
  });

  it('adds plans from SHUTTER_PLANS_FILE and replaces one of the same name', async () => {
    const path = await file(
      'plans.json',
      JSON.stringify({
        plans: [
          { name: 'free', max_keys: 1, monthly_quota: 250, rate_per_minute: 20, concurrency: 1 },
          { name: 'enterprise', max_keys: 500, monthly_quota: 1_000_000, rate_per_minute: 1000, concurrency: 64 },
        ],
      }),
    );
    const plans = loadPlans(path);
    expect(plans.all().map((p) => p.name)).toEqual(['free', 'basic', 'growth', 'scale', 'enterprise']);
    expect(plans.get('free')).toEqual({
      name: 'free',
      maxKeys: 1,
      monthlyQuota: 250,
      ratePerMinute: 20,
      concurrency: 1,
      maxQueuedJobs: 10,
    });
    expect(plans.get('enterprise')?.concurrency).toBe(64);
  });

  it('falls back to free for an account whose plan left the file', () => {
    expect(new Plans().resolve('gone').name).toBe('free');
    expect(new Plans().resolve('growth').name).toBe('growth');
  });

  it.each([
    ['not JSON', '{ plans: '],
    ['no plans list', '{}'],
    ['an unknown field', '{"plans":[{"name":"x","max_keys":1,"monthly_quota":1,"rate_per_minute":1,"concurrency":1,"price":5}]}'],
    ['a missing field', '{"plans":[{"name":"x","max_keys":1,"monthly_quota":1,"rate_per_minute":1}]}'],
    ['zero concurrency', '{"plans":[{"name":"x","max_keys":1,"monthly_quota":1,"rate_per_minute":1,"concurrency":0}]}'],
    ['a bad name', '{"plans":[{"name":"Big Plan","max_keys":1,"monthly_quota":1,"rate_per_minute":1,"concurrency":1}]}'],
  ])('stops the start on a file with %s, naming the variable', async (label, content) => {
    const path = await file(`${label.replace(/\W/g, '-')}.json`, content);
    expect(() => loadPlans(path)).toThrow(ConfigError);
    expect(() => loadPlans(path)).toThrow(/SHUTTER_PLANS_FILE/);
  });

  it('stops the start on a missing file', () => {
    expect(() => loadPlans(join(dir, 'nope.json'))).toThrow(/SHUTTER_PLANS_FILE=.*nope\.json/);
  });
});
