import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { hideConsentOverlays } from './consent-fallback.js';
import { candidateRules } from './consent-rules.js';

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve('@duckduckgo/autoconsent/rules/rules.json'));

/** DuckDuckGo's autoconsent content script as the package ships it; read once. */
let script: string | undefined;
const autoconsentScript = () => (script ??= readFileSync(join(packageDir, '..', 'dist', 'autoconsent.playwright.js'), 'utf8'));

/** Longest time spent on consent handling in one capture. */
const CONSENT_BUDGET_MS = 3_000;

const CONFIG = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  // Injected after load: hiding ahead of detection would only delay the capture.
  enablePrehide: false,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  enableHeuristicDetection: true,
  heuristicMode: 'tier2',
  // One look: this runs after the page's own waits (load, network idle, delay); a retry costs 500 ms.
  detectRetries: 0,
  isMainWorld: true,
  logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
};

interface Message {
  type?: string;
  id?: string;
  code?: string;
  state?: { lifecycle?: string };
}

/**
 * Rejects cookie consent with autoconsent (OneTrust, Cookiebot, Didomi, Quantcast, TrustArc,
 * Usercentrics, Sourcepoint, CookieYes, Complianz, Osano, iubenda, Termly and ~800 more), so
 * the page renders as after a refusal; then hides what consent overlays remain.
 */
export async function rejectCookieBanners(page: Page): Promise<void> {
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const active = new Set<Frame>();
  const reply = (frame: Frame, message: object) =>
    frame
      .evaluate(
        (m) => (window as unknown as { autoconsentReceiveMessage?: (x: object) => unknown }).autoconsentReceiveMessage?.(m),
        message,
      )
      .catch(() => undefined);

  await page.exposeBinding('autoconsentSendMessage', async ({ frame }: { frame: Frame }, message: Message) => {
    switch (message?.type) {
      case 'init': {
        active.add(frame);
        // Code-based platforms (OneTrust, Cookiebot, TrustArc, Sourcepoint…) live in the script;
        // of the declarative rules only those whose markers are on the page are sent.
        const autoconsent = await candidateRules(frame).catch(() => []);
        return reply(frame, { type: 'initResp', config: CONFIG, rules: { autoconsent } });
      }
      case 'eval': {
        const result = await frame.evaluate(message.code ?? 'false').catch(() => false);
        return reply(frame, { type: 'evalResp', id: message.id, result });
      }
      case 'autoconsentDone':
      case 'optOutResult':
        if (frame === page.mainFrame() || message.type === 'autoconsentDone') finish();
        return undefined;
      case 'report':
        if (frame === page.mainFrame() && message.state?.lifecycle === 'nothingDetected') {
          // Consent platforms in iframes (e.g. Sourcepoint) report from their own frame; give them a moment.
          setTimeout(finish, [...active].some((f) => f !== page.mainFrame()) ? 1_000 : 0);
        }
        return undefined;
      default:
        return undefined;
    }
  });
  const source = autoconsentScript();
  await Promise.all(page.frames().map((frame) => frame.evaluate(source).catch(() => undefined)));
  await Promise.race([finished, new Promise((r) => setTimeout(r, CONSENT_BUDGET_MS))]);
  // Some platforms reload the page after a refusal.
  await page.waitForLoadState('load', { timeout: 2_000 }).catch(() => undefined);
  await hideConsentOverlays(page).catch(() => 0);
}
