import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/stub-engine.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.app.close();
  await t.keys.close();
});

describe('GET /v1/devices', () => {
  it('lists Playwright’s devices under snake_case names, portrait only, with what each sets', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/devices' });
    expect(res.statusCode).toBe(200);
    const { devices } = res.json() as { devices: Array<Record<string, unknown>> };
    const names = devices.map((d) => d.name as string);
    expect(names).toEqual(expect.arrayContaining(['iphone_15_pro', 'pixel_7', 'ipad_pro_11', 'desktop_chrome']));
    expect(names.every((n) => /^[a-z0-9_]+$/.test(n) && !n.includes('landscape'))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    expect(devices.find((d) => d.name === 'iphone_15_pro')).toEqual({
      name: 'iphone_15_pro',
      viewport: { width: 393, height: 659 },
      device_scale_factor: 3,
      mobile: true,
      has_touch: true,
      user_agent: expect.stringContaining('iPhone'),
    });
  });
});
