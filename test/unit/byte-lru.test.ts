import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../src/cache/byte-lru.js';

describe('ByteLru', () => {
  it('keeps at most maxBytes, dropping the least recently used first', () => {
    const lru = new ByteLru<string>(100);
    lru.set('a', 'A', 40);
    lru.set('b', 'B', 40);
    expect(lru.get('a')).toBe('A'); // a is now newer than b
    lru.set('c', 'C', 40);
    expect(lru.bytes).toBe(80);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
  });

  it('never holds more than its bound, whatever is added', () => {
    const lru = new ByteLru<number>(1000, 300);
    for (let i = 0; i < 500; i++) {
      lru.set(`k${i % 37}`, i, (i * 7919) % 400);
      expect(lru.bytes).toBeLessThanOrEqual(1000);
    }
  });

  it('does not keep a value larger than maxEntryBytes, and replacing a key frees its old bytes', () => {
    const lru = new ByteLru<string>(100, 50);
    lru.set('big', 'X', 60);
    expect(lru.get('big')).toBeUndefined();
    expect(lru.bytes).toBe(0);
    lru.set('a', 'A1', 30);
    lru.set('a', 'A2', 20);
    expect(lru.bytes).toBe(20);
    expect(lru.get('a')).toBe('A2');
    // Replaced by one too large: the old value goes too.
    lru.set('a', 'A3', 70);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.bytes).toBe(0);
  });

  it('prunes and deletes', () => {
    const lru = new ByteLru<{ until: number }>(100);
    lru.set('old', { until: 1 }, 10);
    lru.set('new', { until: 3 }, 10);
    lru.prune((v) => v.until <= 2);
    expect(lru.get('old')).toBeUndefined();
    expect(lru.size).toBe(1);
    lru.delete('new');
    lru.delete('absent');
    expect(lru.bytes).toBe(0);
    lru.set('x', { until: 0 }, 5);
    lru.clear();
    expect(lru.size).toBe(0);
    expect(lru.bytes).toBe(0);
  });
});
