import { parse } from 'css-what';

// css-what accepts a few shapes that browsers reject; catch the common ones here too.
const BROWSER_REJECTS = [/\.\./, /[>+~]\s*$/, /\.\s*$/, /^\s*[>+~]/];

/**
 * True when text is a CSS selector list that a standards parser accepts. The page itself
 * has the last word (an unparseable selector there is 422 selector_invalid).
 */
export function isValidSelector(text: string): boolean {
  if (text.trim() === '' || BROWSER_REJECTS.some((re) => re.test(text))) return false;
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
}
