/** Names callers of other screenshot APIs commonly use for our parameters. */
const ALIASES: Readonly<Record<string, string>> = {
  width: 'viewport_width',
  height: 'viewport_height',
  fullpage: 'full_page',
  type: 'format',
  output: 'format',
  wait: 'delay',
  waitfor: 'wait_until',
  waituntil: 'wait_until',
  css: 'styles',
  style: 'styles',
  dpr: 'device_scale_factor',
  scale: 'device_scale_factor',
  hide: 'hide_selectors',
  hideselector: 'hide_selectors',
  country: 'ip_country_code',
  filename: 'attachment_name',
  blockcookies: 'block_cookie_banners',
  noads: 'block_ads',
  adblock: 'block_ads',
};

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

const MAX_NAME_FOR_SUGGESTION = 64;

/** The known name closest to an unknown one, or undefined when none is close. */
export function didYouMean(unknown: string, known: readonly string[]): string | undefined {
  // Edit distance is quadratic: a name far longer than any known one is no typo of one.
  if (unknown.length > MAX_NAME_FOR_SUGGESTION) return undefined;
  const key = squash(unknown);
  const exact = known.find((k) => squash(k) === key);
  if (exact) return exact;
  const alias = ALIASES[key];
  if (alias && known.includes(alias)) return alias;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    // "widht" should find viewport_width: compare with the whole name and with its last word.
    const last = k.split('_').at(-1) ?? k;
    const d = Math.min(distance(key, squash(k)), last.length >= 4 ? distance(key, last) : Infinity);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  const limit = key.length <= 4 ? 1 : key.length <= 8 ? 2 : 3;
  return bestDistance <= limit ? best : undefined;
}
