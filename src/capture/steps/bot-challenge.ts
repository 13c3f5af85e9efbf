import type { CDPSession } from 'playwright-core';

/** Which kind of bot wall a page is: named in the 422's details and in debug bundles. */
export type ChallengeKind = 'cloudflare' | 'captcha' | 'access_denied';

/** Statuses that "access denied" pages come with; the same words on a 200 page are an article about them. */
const DENIED_STATUSES = new Set([403, 429, 503]);

/**
 * Whether the loaded page is a bot wall rather than the site: Cloudflare's interstitial (its
 * title, challenge form or challenge-platform script), an hCaptcha / reCAPTCHA / Turnstile widget
 * that is the page's main content (little other text), or a short "access denied" page answered
 * with 403, 429 or 503. One evaluation; the rules are deliberately narrow so that ordinary pages
 * (a login form with a captcha, an article about bot walls) are not flagged.
 */
export async function detectBotChallenge(cdp: CDPSession, status: number | undefined): Promise<ChallengeKind | undefined> {
  // Over the capture's own CDP session, not page.evaluate: Playwright's first evaluate in a page
  // injects its utility script, which cost ~20 ms a capture here (settle.ts says the same).
  const answer = await cdp
    .send('Runtime.evaluate', {
      expression: `(${inPage.toString()})(${JSON.stringify(status !== undefined && DENIED_STATUSES.has(status))})`,
      returnByValue: true,
    })
    .catch(() => undefined);
  const kind = answer?.result.value as unknown;
  return kind === 'cloudflare' || kind === 'captcha' || kind === 'access_denied' ? kind : undefined;
}

/** Runs in the page: which bot wall it is, if any. */
function inPage(denied: boolean): ChallengeKind | undefined {
  const title = document.title.trim().toLowerCase();
  const has = (selector: string) => document.querySelector(selector) !== null;
  if (
    title === 'just a moment...' ||
    title === 'just a moment…' ||
    title.startsWith('attention required! | cloudflare') ||
    has('#challenge-form, #cf-challenge-running, #challenge-running, script[src*="/cdn-cgi/challenge-platform/"]')
  ) {
    return 'cloudflare';
  }
  const widget = has(
    'iframe[src*="hcaptcha.com"], iframe[src*="/recaptcha/"], iframe[src*="challenges.cloudflare.com"], ' +
      '.h-captcha, .g-recaptcha, .cf-turnstile',
  );
  // innerText lays the page out: it is read only where it decides something (a widget, a refusing status).
  if (!widget && !denied) return undefined;
  const text = (document.body?.innerText ?? '').replace(/\s+/g, ' ').trim();
  // The challenge is the main content when the page says little else.
  if (widget && text.length < 400) return 'captcha';
  const words =
    /access denied|forbidden|blocked|too many requests|rate limit|unusual traffic|are you a robot|verify you are (a )?human|bot detection/;
  if (denied && text.length < 2000 && (words.test(title) || words.test(text.toLowerCase().slice(0, 600)))) return 'access_denied';
  return undefined;
}
