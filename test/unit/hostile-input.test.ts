import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/values/api-key.js';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors/config-error.js';
import { AppError } from '../../src/errors/app-error.js';
import { toErrorResponse } from '../../src/http/error-response.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';

const parse = (raw: Record<string, unknown>) => parseTakeOptions(raw, { countries: [] });
const failure = (raw: Record<string, unknown>): AppError => {
  try {
    parse(raw);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a validation error');
};

describe('input built to break the parser', () => {
  it('rejects an attachment_name with a lone surrogate (it cannot be encoded into a header)', () => {
    const error = failure({ url: 'https://example.com', attachment_name: 'a\ud800b' });
    expect(error.extra.details?.[0]).toMatchObject({ parameter: 'attachment_name', code: 'invalid_parameter' });
  });

  it('rejects C1 control characters in attachment_name', () => {
    expect(failure({ url: 'https://example.com', attachment_name: 'a\u0085b' }).code).toBe('invalid_parameter');
  });

  it('treats a __proto__ key as an unknown parameter and keeps the prototype intact', () => {
    const raw = JSON.parse('{"url":"https://example.com","__proto__":"x"}') as Record<string, unknown>;
    const error = failure(raw);
    expect(error.code).toBe('unknown_parameter');
    expect(error.extra.details?.map((d) => d.parameter)).toEqual(['__proto__']);
  });

  it('does not echo a huge value back in full', () => {
    const html = 'x'.repeat(6 * 1024 * 1024);
    const error = failure({ html });
    const detail = error.extra.details!.find((d) => d.parameter === 'html')!;
    expect(typeof detail.value).toBe('string');
    expect((detail.value as string).length).toBeLessThanOrEqual(201);
    expect(JSON.stringify(error.extra.details).length).toBeLessThan(2000);
  });

  it('maps an error whose code is an Object.prototype name to 500 internal_error', () => {
    const logger = pino({ level: 'silent' });
    for (const code of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const response = toErrorResponse(Object.assign(new Error('boom'), { code }), 'rid', logger);
      expect(response.status).toBe(500);
      expect(response.body.error.code).toBe('internal_error');
    }
  });
});

describe('SHUTTER_BOOTSTRAP_KEY', () => {
  it('refuses a shk_ value whose checksum is wrong (it could never authenticate)', () => {
    expect(() => loadConfig({ SHUTTER_BOOTSTRAP_KEY: 'shk_mysecretvalue123456' })).toThrow(ConfigError);
    expect(() => loadConfig({ SHUTTER_BOOTSTRAP_KEY: 'shk_mysecretvalue123456' })).toThrow(/SHUTTER_BOOTSTRAP_KEY/);
  });

  it('accepts a generated key and a secret without the prefix', () => {
    const key = generateApiKey();
    expect(loadConfig({ SHUTTER_BOOTSTRAP_KEY: key }).SHUTTER_BOOTSTRAP_KEY).toBe(key);
    expect(loadConfig({ SHUTTER_BOOTSTRAP_KEY: 'my-own-long-secret' }).SHUTTER_BOOTSTRAP_KEY).toBe('my-own-long-secret');
  });
});

describe('a flood of unknown parameters', () => {
  it('gets "did you mean" work for the first 20 only, and every name reported', () => {
    const raw: Record<string, unknown> = { url: 'https://example.com' };
    // 100 distinct spellings of fullpage: each alone would earn the suggestion full_page.
    for (let mask = 1; mask <= 100; mask++) {
      raw[[...'fullpage'].map((c, i) => (mask & (1 << i) ? c.toUpperCase() : c)).join('')] = '1';
    }
    const error = failure(raw);
    expect(error.code).toBe('unknown_parameter');
    expect(error.extra.details).toHaveLength(100);
    const suggested = error.extra.details!.filter((d) => d.suggestion === 'full_page');
    expect(suggested).toHaveLength(20);
  });
});
