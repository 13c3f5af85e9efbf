import { describe, expect, it } from 'vitest';
import { CountryProxies } from '../../src/egress/country-proxies.js';
import { parseProxyTable } from '../../src/values/proxy-table.js';

describe('SHUTTER_PROXIES parsing', () => {
  it('accepts one URL or a list per lowercase country code, with credentials', () => {
    const table = parseProxyTable('{"de":"http://user:p%40ss@10.0.0.1:3128","us":["http://a:8080","socks5://b:1080"]}');
    expect([...table.keys()]).toEqual(['de', 'us']);
    expect(table.get('de')![0]).toMatchObject({ protocol: 'http', host: '10.0.0.1', port: 3128, username: 'user', password: 'p@ss' });
    expect(table.get('us')!.map((p) => p.protocol)).toEqual(['http', 'socks5']);
  });

  it('an empty setting means no countries', () => {
    expect(parseProxyTable('').size).toBe(0);
  });

  it.each([
    ['not json', /JSON object/],
    ['["http://a:1"]', /JSON object/],
    ['{"DE":"http://a:1"}', /"DE" is not a lowercase/],
    ['{"deu":"http://a:1"}', /"deu"/],
    ['{"de":"ftp://a:21"}', /de\[0\] uses ftp/],
    ['{"de":"http://nohost"}', /de\[0\] needs a host and a port/],
    ['{"de":[]}', /de: give a proxy URL/],
    ['{"de":42}', /de: give a proxy URL/],
  ])('rejects %s', (json, message) => {
    expect(() => parseProxyTable(json)).toThrow(message);
  });
});

describe('CountryProxies', () => {
  const pool = () => new CountryProxies(parseProxyTable('{"us":["http://a:1","http://b:2","http://c:3"],"de":"http://d:4"}'));

  it('lists the countries and picks nothing for others', () => {
    expect(pool().countries).toEqual(['de', 'us']);
    expect(pool().pick('fr')).toBeUndefined();
  });

  it('goes round-robin', () => {
    const p = pool();
    expect([1, 2, 3, 4].map(() => p.pick('us')!.host)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('skips a failed proxy for a minute, then uses it again', () => {
    const p = pool();
    const now = 1_000_000;
    const a = p.pick('us', now)!;
    p.failed(a, now);
    expect([1, 2, 3].map(() => p.pick('us', now + 1000)!.host)).toEqual(['b', 'c', 'b']);
    expect(p.pick('us', now + 61_000)!.host).toBe('c');
    expect(p.pick('us', now + 61_000)!.host).toBe('a');
  });

  it('when all have failed it still tries them rather than refusing', () => {
    const p = pool();
    const d = p.pick('de', 0)!;
    p.failed(d, 0);
    expect(p.pick('de', 1)!.host).toBe('d');
  });

  it('describes a proxy without its credentials', () => {
    const p = new CountryProxies(parseProxyTable('{"de":"http://user:secret@h:3128"}'));
    expect(p.describe(p.pick('de')!)).toBe('http://h:3128');
  });
});
