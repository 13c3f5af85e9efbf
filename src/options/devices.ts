import { createRequire } from 'node:module';
import type * as PlaywrightCore from 'playwright-core';

// Required, not imported: Node 20 scans a CommonJS package imported from ESM for its export names,
// and playwright-core's 7 MB of bundles cost ~0.2-0.4 s of every start that way (browser-process.ts the same).
const { devices: playwrightDevices } = createRequire(import.meta.url)('playwright-core') as typeof PlaywrightCore;

/** A real device's screen as `viewport_device` applies it and `GET /v1/devices` lists it. */
export interface Device {
  name: string;
  viewport: { width: number; height: number };
  device_scale_factor: number;
  mobile: boolean;
  has_touch: boolean;
  user_agent: string;
}

/** "iPhone 15 Pro" → "iphone_15_pro": the API's names are snake_case. */
export const deviceName = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

/**
 * Playwright's device descriptors under snake_case names. Their " landscape" twins are left out:
 * `viewport_landscape` turns any device.
 */
export const DEVICES: ReadonlyMap<string, Device> = new Map(
  Object.entries(playwrightDevices)
    .filter(([label]) => !/landscape/i.test(label))
    .map(([label, d]) => {
      const name = deviceName(label);
      return [
        name,
        {
          name,
          viewport: { width: d.viewport.width, height: d.viewport.height },
          device_scale_factor: d.deviceScaleFactor,
          mobile: d.isMobile,
          has_touch: d.hasTouch,
          user_agent: d.userAgent,
        },
      ];
    }),
);

export const DEVICE_NAMES = [...DEVICES.keys()];
