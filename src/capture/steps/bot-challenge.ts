import type { Page } from 'playwright-core';

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
export async function detectBotChallenge(page: Page, status: number | undefined): Promise<ChallengeKind | undefined> {
  const kind = await page
    .evaluate(
      (denied) => {
        const title = document.title.trim().toLowerCase();
        const text = (document.body?.innerText ?? '').replace(/\s+/g, ' ').trim();
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
        // The challenge is the main content when the page says little else.
        if (widget && text.length < 400) return 'captcha';
        const words =
          /access denied|forbidden|blocked|too many requests|rate limit|unusual traffic|are you a robot|verify you are (a )?human|bot detection/;
        if (denied && text.length < 2000 && (words.test(title) || words.test(text.toLowerCase().slice(0, 600)))) return 'access_denied';
        return undefined;
      },
      status !== undefined && DENIED_STATUSES.has(status),
    )
    .catch(() => undefined);
  return kind;
}
