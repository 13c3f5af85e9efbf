import { describe, expect, it } from 'vitest';
import { describeConfig, loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors/config-error.js';
import { configSchema } from '../../src/config/schema.js';

/** The message of the ConfigError loadConfig throws for env. */
function configError(env: Record<string, string>): string {
  let thrown: unknown;
  try {
    loadConfig(env);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  return (thrown as ConfigError).message;
}

describe('loadConfig defaults', () => {
  it('an empty environment gets every default', () => {
    expect(loadConfig({})).toMatchObject({
      SHUTTER_PORT: 8080,
      SHUTTER_HOST: '0.0.0.0',
      SHUTTER_DATA_DIR: './data',
      SHUTTER_CONCURRENCY: 4,
      SHUTTER_QUEUE_SIZE: 100,
      SHUTTER_BROWSER_MAX_CAPTURES: 500,
      SHUTTER_ALLOWED_PRIVATE_NETWORKS: [],
      SHUTTER_MAX_FULL_PAGE_HEIGHT: 20_000,
      SHUTTER_MAX_PIXELS: 60_000_000,
      SHUTTER_LOG_LEVEL: 'info',
      SHUTTER_TRUST_PROXY: false,
    });
    const config = loadConfig({});
    expect(config.SHUTTER_CHROMIUM_PATH).toBeUndefined();
    expect(config.SHUTTER_BOOTSTRAP_KEY).toBeUndefined();
  });

  it('empty strings count as unset', () => {
    const config = loadConfig({ SHUTTER_PORT: '', SHUTTER_HOST: '', SHUTTER_LOG_LEVEL: '', SHUTTER_BOOTSTRAP_KEY: '' });
    expect(config.SHUTTER_PORT).toBe(8080);
    expect(config.SHUTTER_HOST).toBe('0.0.0.0');
    expect(config.SHUTTER_LOG_LEVEL).toBe('info');
    expect(config.SHUTTER_BOOTSTRAP_KEY).toBeUndefined();
  });

  it('ignores variables it does not know', () => {
    const config = loadConfig({ PATH: '/usr/bin', SHUTTER_NOT_A_SETTING: 'x' });
    expect(config).not.toHaveProperty('PATH');
    expect(config).not.toHaveProperty('SHUTTER_NOT_A_SETTING');
  });
});

describe('loadConfig values', () => {
  it('reads numbers, strings and enums', () => {
    const config = loadConfig({
      SHUTTER_PORT: '3000',
      SHUTTER_HOST: '127.0.0.1',
      SHUTTER_DATA_DIR: '/var/lib/shutter',
      SHUTTER_CHROMIUM_PATH: '/usr/bin/chromium',
      SHUTTER_CONCURRENCY: '8',
      SHUTTER_QUEUE_SIZE: '0',
      SHUTTER_BROWSER_MAX_CAPTURES: '1',
      SHUTTER_BOOTSTRAP_KEY: 'a-secret-of-16-chars',
      SHUTTER_MAX_FULL_PAGE_HEIGHT: '100000',
      SHUTTER_LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({
      SHUTTER_PORT: 3000,
      SHUTTER_HOST: '127.0.0.1',
      SHUTTER_DATA_DIR: '/var/lib/shutter',
      SHUTTER_CHROMIUM_PATH: '/usr/bin/chromium',
      SHUTTER_CONCURRENCY: 8,
      SHUTTER_QUEUE_SIZE: 0,
      SHUTTER_BROWSER_MAX_CAPTURES: 1,
      SHUTTER_BOOTSTRAP_KEY: 'a-secret-of-16-chars',
      SHUTTER_MAX_FULL_PAGE_HEIGHT: 100_000,
      SHUTTER_LOG_LEVEL: 'debug',
    });
  });

  it.each([
    ['1', true],
    ['true', true],
    ['yes', true],
    ['0', false],
    ['false', false],
    ['no', false],
  ])('SHUTTER_TRUST_PROXY=%s → %s', (value, expected) => {
    expect(loadConfig({ SHUTTER_TRUST_PROXY: value }).SHUTTER_TRUST_PROXY).toBe(expected);
  });

  it('port 0 and 65535 are the bounds', () => {
    expect(loadConfig({ SHUTTER_PORT: '0' }).SHUTTER_PORT).toBe(0);
    expect(loadConfig({ SHUTTER_PORT: '65535' }).SHUTTER_PORT).toBe(65535);
  });
});

describe('loadConfig bad values', () => {
  it.each([
    ['SHUTTER_PORT', 'abc'],
    ['SHUTTER_PORT', '65536'],
    ['SHUTTER_PORT', '-1'],
    ['SHUTTER_PORT', '80.5'],
    ['SHUTTER_CONCURRENCY', '0'],
    ['SHUTTER_CONCURRENCY', '65'],
    ['SHUTTER_QUEUE_SIZE', '10001'],
    ['SHUTTER_BROWSER_MAX_CAPTURES', '0'],
    ['SHUTTER_MAX_FULL_PAGE_HEIGHT', '99'],
    ['SHUTTER_MAX_FULL_PAGE_HEIGHT', '100001'],
    ['SHUTTER_LOG_LEVEL', 'verbose'],
    ['SHUTTER_LOG_LEVEL', 'INFO'],
    ['SHUTTER_TRUST_PROXY', 'maybe'],
    ['SHUTTER_BOOTSTRAP_KEY', 'short'],
    ['SHUTTER_BOOTSTRAP_KEY', 'x'.repeat(257)],
    ['SHUTTER_ALLOWED_PRIVATE_NETWORKS', 'nonsense'],
    ['SHUTTER_ALLOWED_PRIVATE_NETWORKS', '10.0.0.0/33'],
    ['SHUTTER_ALLOWED_PRIVATE_NETWORKS', '10.0.0.0/8,300.1.1.1'],
  ])('%s=%j is refused, naming the variable', (name, value) => {
    const message = configError({ [name]: value });
    expect(message).toMatch(/^invalid configuration:\n/);
    const lines = message.split('\n').slice(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^  ${name}: .+`));
  });

  it('names every bad variable at once', () => {
    const message = configError({
      SHUTTER_PORT: 'abc',
      SHUTTER_LOG_LEVEL: 'verbose',
      SHUTTER_ALLOWED_PRIVATE_NETWORKS: 'nonsense',
      SHUTTER_BOOTSTRAP_KEY: 'short',
      SHUTTER_TRUST_PROXY: 'maybe',
      SHUTTER_HOST: 'fine.example',
    });
    const names = message
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(':')[0]);
    expect(names.sort()).toEqual([
      'SHUTTER_ALLOWED_PRIVATE_NETWORKS',
      'SHUTTER_BOOTSTRAP_KEY',
      'SHUTTER_LOG_LEVEL',
      'SHUTTER_PORT',
      'SHUTTER_TRUST_PROXY',
    ]);
  });

  it('explains what is wrong with the value', () => {
    expect(configError({ SHUTTER_BOOTSTRAP_KEY: 'short' })).toContain('SHUTTER_BOOTSTRAP_KEY: must be at least 16 characters');
    expect(configError({ SHUTTER_ALLOWED_PRIVATE_NETWORKS: '10.0.0.0/8, nonsense' })).toContain(
      'SHUTTER_ALLOWED_PRIVATE_NETWORKS: "nonsense" is not a CIDR',
    );
  });

  it('a ConfigError is an Error', () => {
    expect(() => loadConfig({ SHUTTER_PORT: 'x' })).toThrow(Error);
  });
});

describe('SHUTTER_ALLOWED_PRIVATE_NETWORKS', () => {
  const networks = (value: string) =>
    loadConfig({ SHUTTER_ALLOWED_PRIVATE_NETWORKS: value }).SHUTTER_ALLOWED_PRIVATE_NETWORKS.map(
      ([net, bits]) => [net.kind(), net.toString(), bits] as const,
    );

  it('parses a comma-separated list of CIDRs', () => {
    expect(networks('10.0.0.0/8,127.0.0.1/32')).toEqual([
      ['ipv4', '10.0.0.0', 8],
      ['ipv4', '127.0.0.1', 32],
    ]);
  });

  it('tolerates spaces and empty entries', () => {
    expect(networks(' 10.0.0.0/8 , ,192.168.0.0/16, ')).toEqual([
      ['ipv4', '10.0.0.0', 8],
      ['ipv4', '192.168.0.0', 16],
    ]);
    expect(networks(',')).toEqual([]);
  });

  it('a bare address is a single host', () => {
    expect(networks('127.0.0.1,::1')).toEqual([
      ['ipv4', '127.0.0.1', 32],
      ['ipv6', '::1', 128],
    ]);
  });

  it('accepts IPv6 networks', () => {
    expect(networks('fd00::/8')).toEqual([['ipv6', 'fd00::', 8]]);
  });
});

describe('describeConfig', () => {
  const rows = describeConfig();
  const row = (name: string) => rows.find((r) => r.name === name);

  it('has one row per variable, in schema order', () => {
    expect(rows.map((r) => r.name)).toEqual(Object.keys(configSchema.shape));
  });

  it('every row has a description', () => {
    for (const r of rows) expect(r.description, r.name).not.toBe('');
  });

  it('shows each default as text, and — where there is none', () => {
    expect(row('SHUTTER_PORT')?.default).toBe('8080');
    expect(row('SHUTTER_HOST')?.default).toBe('0.0.0.0');
    expect(row('SHUTTER_DATA_DIR')?.default).toBe('./data');
    expect(row('SHUTTER_CONCURRENCY')?.default).toBe('4');
    expect(row('SHUTTER_QUEUE_SIZE')?.default).toBe('100');
    expect(row('SHUTTER_BROWSER_MAX_CAPTURES')?.default).toBe('500');
    expect(row('SHUTTER_MAX_FULL_PAGE_HEIGHT')?.default).toBe('20000');
    expect(row('SHUTTER_MAX_PIXELS')?.default).toBe('60000000');
    expect(row('SHUTTER_LOG_LEVEL')?.default).toBe('info');
    expect(row('SHUTTER_TRUST_PROXY')?.default).toBe('false');
    expect(row('SHUTTER_ALLOWED_PRIVATE_NETWORKS')?.default).toBe('—');
    expect(row('SHUTTER_CHROMIUM_PATH')?.default).toBe('—');
    expect(row('SHUTTER_BOOTSTRAP_KEY')?.default).toBe('—');
  });

  it('the port row carries its description', () => {
    expect(row('SHUTTER_PORT')?.description).toBe('TCP port the HTTP server listens on.');
  });
});
