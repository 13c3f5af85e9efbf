import { readFileSync } from 'node:fs';

/** What of /etc/resolv.conf decides which names are asked: the search list and ndots. */
export interface SearchConfig {
  search: string[];
  ndots: number;
}

/** The search list and ndots of resolv.conf text (`domain` is a one-entry search list; the last of the two wins, as in glibc). */
export function parseResolvConf(text: string): SearchConfig {
  let search: string[] = [];
  let ndots = 1;
  for (const line of text.split('\n')) {
    const [keyword, ...values] = line
      .replace(/[#;].*/, '')
      .trim()
      .split(/\s+/);
    if (keyword === 'search' || keyword === 'domain')
      search = values.map((v) => v.toLowerCase().replace(/\.$/, '')).filter((v) => v && v !== '.');
    if (keyword === 'options') {
      for (const option of values) {
        const m = /^ndots:(\d+)$/.exec(option);
        if (m) ndots = Math.min(15, Number(m[1]));
      }
    }
  }
  return { search, ndots };
}

/** resolv.conf's search settings, or none when the file cannot be read. */
export function readSearchConfig(path = '/etc/resolv.conf'): SearchConfig {
  try {
    return parseResolvConf(readFileSync(path, 'utf8'));
  } catch {
    return { search: [], ndots: 1 };
  }
}

/**
 * The names to ask, in order, as glibc's res_search does: a name with at least `ndots` dots is
 * tried as is first, then with each search domain; a shorter one the other way round. A name
 * written with a trailing dot is absolute and asked as is only.
 */
export function searchCandidates(name: string, config: SearchConfig, absolute = false): string[] {
  if (absolute || config.search.length === 0) return [name];
  const suffixed = config.search.map((domain) => `${name}.${domain}`);
  const dots = name.split('.').length - 1;
  return dots >= config.ndots ? [name, ...suffixed] : [...suffixed, name];
}
