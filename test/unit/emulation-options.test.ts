import { describe, expect, it } from 'vitest';
import { parseOptions as parse, problemsOf as problems } from '../helpers/options.js';
import { DEVICES } from '../../src/options/devices.js';

describe('viewport_device', () => {
  it('sets the device’s viewport, pixel ratio, user agent, mobile and touch', () => {
    const device = DEVICES.get('iphone_15_pro')!;
    expect(parse({ viewport_device: 'iPhone_15_Pro' })).toMatchObject({
      viewport_device: 'iphone_15_pro',
      viewport_width: device.viewport.width,
      viewport_height: device.viewport.height,
      device_scale_factor: device.device_scale_factor,
      user_agent: device.user_agent,
      viewport_mobile: true,
      viewport_has_touch: true,
    });
  });

  it('explicit values win over the device’s, in both forms', () => {
    const o = parse({
      viewport_device: 'pixel_7',
      viewport_width: 600,
      device_scale_factor: '1',
      viewport_mobile: '0',
      user_agent: 'Me/1',
    });
    expect(o).toMatchObject({
      viewport_width: 600,
      device_scale_factor: 1,
      viewport_mobile: false,
      viewport_has_touch: true,
      user_agent: 'Me/1',
    });
    expect(o.viewport_height).toBe(DEVICES.get('pixel_7')!.viewport.height);
  });

  it('landscape swaps the final width and height, with or without a device', () => {
    expect(parse({ viewport_landscape: '1' })).toMatchObject({ viewport_width: 800, viewport_height: 1280 });
    const d = DEVICES.get('ipad_pro_11')!.viewport;
    expect(parse({ viewport_device: 'ipad_pro_11', viewport_landscape: true })).toMatchObject({
      viewport_width: d.height,
      viewport_height: d.width,
    });
  });

  it('an unknown device is a 400 with a suggestion and where the list is', () => {
    const [p] = problems({ viewport_device: 'iphone_15_pr' });
    expect(p).toMatchObject({ parameter: 'viewport_device', code: 'invalid_parameter' });
    expect(p!.message).toContain('did you mean iphone_15_pro?');
    expect(p!.message).toContain('GET /v1/devices');
  });

  it('the pixel budget is checked on the device’s real size', () => {
    const d = DEVICES.get('iphone_15_pro')!;
    const pixels = d.viewport.width * d.viewport.height * d.device_scale_factor ** 2;
    expect(() => parse({ viewport_device: 'iphone_15_pro' }, Math.ceil(pixels))).not.toThrow();
    expect(problems({ viewport_device: 'iphone_15_pro' }, Math.floor(pixels) - 1).map((p) => p.parameter)).toContain('viewport_width');
  });

  it('without a device nothing changes: desktop, no touch', () => {
    expect(parse({})).toMatchObject({ viewport_width: 1280, viewport_height: 800, viewport_mobile: false, viewport_has_touch: false });
    expect(parse({}).user_agent).toBeUndefined();
  });
});

describe('page emulation values', () => {
  it.each([
    ['time_zone', 'Europe/Berlin', 'Europe/Berlin'],
    ['time_zone', 'UTC', 'UTC'],
    ['locale', 'de-de', 'de-DE'],
    ['locale', 'en', 'en'],
    ['media_type', 'PRINT', 'print'],
    ['dark_mode', '1', true],
    ['reduced_motion', 'true', true],
    ['bypass_csp', 1, true],
    ['user_agent', 'Bot/1.0 (+https://x.test)', 'Bot/1.0 (+https://x.test)'],
  ])('%s=%s is accepted as %s', (name, input, output) => {
    expect(parse({ [name]: input })[name as 'locale']).toEqual(output);
  });

  it.each([
    ['time_zone', 'Mars/Olympus'],
    ['time_zone', 'Europe/berlin'],
    ['locale', 'not a locale'],
    ['locale', 'x'],
    ['media_type', 'tv'],
    ['user_agent', 'a\r\nX-Injected: 1'],
    ['user_agent', 'x'.repeat(1025)],
    ['geolocation_latitude', '91'],
    ['geolocation_longitude', '-181'],
  ])('%s=%j is a 400 naming it', (name, value) => {
    const extra = name.startsWith('geolocation') ? { geolocation_latitude: 1, geolocation_longitude: 1 } : {};
    const found = problems({ ...extra, [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ parameter: name, code: 'invalid_parameter' });
  });

  it('media_type does not apply to pdf (it has pdf_media_type)', () => {
    expect(problems({ format: 'pdf', media_type: 'print' })[0]).toMatchObject({
      parameter: 'media_type',
      code: 'parameter_not_applicable',
    });
    expect(parse({ format: 'markdown', media_type: 'print' }).media_type).toBe('print');
  });

  it('latitude and longitude come together; accuracy only with them', () => {
    expect(parse({ geolocation_latitude: '52.5', geolocation_longitude: 13.4 })).toMatchObject({
      geolocation_latitude: 52.5,
      geolocation_longitude: 13.4,
    });
    expect(problems({ geolocation_latitude: 52.5 })[0]).toMatchObject({ parameter: 'geolocation_longitude' });
    expect(problems({ geolocation_longitude: 13.4 })[0]).toMatchObject({ parameter: 'geolocation_latitude' });
    expect(problems({ geolocation_accuracy: 10 })[0]).toMatchObject({ parameter: 'geolocation_accuracy' });
  });
});
