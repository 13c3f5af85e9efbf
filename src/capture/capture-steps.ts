import { AppError } from '../errors/app-error.js';
import { formatOf, type Format, type TakeFormat } from '../formats/registry.js';
import type { TakeOptions } from '../options/schema.js';
import { recordAnimation } from './render/animation.js';
import { RENDERERS } from './render/renderers.js';
import { isBlankImage } from './steps/blank-image.js';
import { detectBotChallenge } from './steps/bot-challenge.js';
import type { CaptureStep } from './capture-step.js';
import { checkContent, checkStatus } from './steps/content-checks.js';
import { scrollIntoView } from './steps/element.js';
import { hideSelectors } from './steps/hide-selectors.js';
import { injectStyles, pauseMotion } from './steps/inject-styles.js';
import { pointAt, runScript, waitForSelector } from './steps/interaction.js';
import { emulateMediaType } from './steps/media-type.js';
import { navigate } from './steps/navigate.js';
import { addTargetHeaders, setCookies } from './steps/request-shaping.js';
import { pageMetadata } from './steps/page-metadata.js';
import { hasDrawnOutput, FONTS_MAX_MS, settle } from './steps/settle.js';
import { waitForPage } from './steps/wait-for-page.js';

/**
 * A capture, in the order DESIGN.md §4.1 fixes (docs/architecture.md), up to the page ready to be
 * rendered: a still capture and an animation share them. A new option that acts on the page is its
 * schema entry plus one step here. The engine only opens the page and starts what must listen from
 * the start (the main-frame guard, the request tracker, dialogs and popups closed).
 */
const PAGE_STEPS: readonly CaptureStep[] = [
  // Before navigation: what the first request must already carry or meet.
  { name: 'request_blocking', phase: 'navigate', run: ({ blocking }) => blocking.beforeNavigation() },
  { name: 'cookies', phase: 'navigate', run: ({ context, options }) => setCookies(context, options) },
  { name: 'headers', phase: 'navigate', run: ({ cdp, options }) => addTargetHeaders(cdp, options) },
  { name: 'media_type', phase: 'navigate', run: ({ cdp, options }) => emulateMediaType(cdp, options.media_type) },
  {
    name: 'navigate',
    phase: 'navigate',
    async run(ctx) {
      const { page, options, signal, mainFrame } = ctx;
      const response = await navigate(page, options, signal).catch(mainFrame.rethrow);
      ctx.mainStatus = response?.status();
      if (options.metadata) ctx.mainHeaders = (await response?.allHeaders().catch(() => undefined)) ?? {};
      checkStatus(ctx.mainStatus, options.fail_on_http_status);
    },
  },
  {
    name: 'wait_until',
    phase: 'wait',
    async run(ctx) {
      const { partial } = await waitForPage(ctx.options, { ...ctx, giveUpAt: ctx.clock.giveUpAt });
      ctx.partial = partial;
    },
  },
  {
    name: 'wait_for_selector',
    phase: 'wait',
    run: ({ page, options }) => waitForSelector(page, options.wait_for_selector),
    timeoutHint: (options) => `no element matching wait_for_selector ${JSON.stringify(options.wait_for_selector)} became visible`,
  },
  { name: 'scripts', phase: 'wait', run: ({ cdp, options }) => runScript(cdp, options.scripts) },
  {
    name: 'scripts_wait_until',
    phase: 'wait',
    async run(ctx) {
      const waitUntil = ctx.options.scripts_wait_until;
      if (waitUntil === undefined) return;
      const { partial } = await waitForPage({ ...ctx.options, wait_until: waitUntil }, { ...ctx, giveUpAt: ctx.clock.giveUpAt });
      ctx.partial ??= partial;
      // A script that navigated: the new main document passes the same egress check.
      ctx.mainFrame.check();
    },
  },
  {
    name: 'blocking',
    phase: 'wait',
    run: async ({ blocking }) => {
      if (blocking.active) await blocking.afterLoad();
    },
  },
  { name: 'hide_selectors', phase: 'wait', run: ({ page, options }) => hideSelectors(page, options.hide_selectors) },
  { name: 'styles', phase: 'wait', run: ({ page, options }) => injectStyles(page, options.styles) },
  { name: 'reduced_motion', phase: 'wait', run: ({ page, options }) => pauseMotion(page, options.reduced_motion) },
  {
    name: 'click',
    phase: 'wait',
    run: ({ page, options }) => pointAt(page, 'click', options.click, options.error_on_click_selector_not_found),
  },
  {
    name: 'hover',
    phase: 'wait',
    run: ({ page, options }) => pointAt(page, 'hover', options.hover, options.error_on_click_selector_not_found),
  },
  {
    name: 'scroll_into_view',
    phase: 'wait',
    run: ({ page, options }) => scrollIntoView(page, options.scroll_into_view, options.scroll_into_view_adjust_top),
  },
  {
    name: 'delay',
    phase: 'wait',
    run: async ({ page, options }) => {
      if (options.delay > 0) await page.waitForTimeout(options.delay * 1000);
    },
  },
  {
    name: 'settle',
    phase: 'wait',
    async run({ cdp, clock, mainFrame, options }) {
      if (hasDrawnOutput(options)) await settle(cdp, clock.spareMs(FONTS_MAX_MS));
      // Last look before rendering: a main document the egress proxy refused is a 403.
      mainFrame.check();
    },
  },
  { name: 'checks', phase: 'wait', run: ({ page, options }) => checkContent(page, options) },
  {
    name: 'metadata',
    phase: 'wait',
    async run(ctx) {
      if (ctx.options.metadata) ctx.metadata = await pageMetadata(ctx.page, { status: ctx.mainStatus, headers: ctx.mainHeaders });
    },
  },
  {
    name: 'bot_challenge',
    phase: 'wait',
    async run(ctx) {
      // One evaluation; on ordinary pages it reads a few selectors only (bot-challenge.ts). Run
      // beside the render it slowed the screenshot by more than it saved.
      const kind = await detectBotChallenge(ctx.cdp, ctx.mainStatus);
      if (kind && !ctx.options.fail_on_bot_challenge) ctx.warnings.add('bot_challenge');
      else if (kind) {
        throw new AppError('bot_challenge', `the page is a bot challenge (${kind}), not the site's content`, {
          details: [{ parameter: 'fail_on_bot_challenge', message: `the page is a ${kind} challenge`, value: kind }],
        });
      }
    },
  },
];

/** A still capture: the page's steps, then its format's renderer and the blank check. */
export const CAPTURE_STEPS: readonly CaptureStep[] = [
  ...PAGE_STEPS,
  {
    // The format's own phases (wait for lazy content, capture, encode) are measured inside.
    name: 'render',
    async run(ctx) {
      ctx.output = await RENDERERS[takeFormat(ctx.options.format)](ctx);
      for (const warning of ctx.output.warnings ?? []) ctx.warnings.add(warning);
    },
  },
  {
    name: 'blank_check',
    phase: 'encode',
    async run(ctx) {
      if (formatOf(ctx.options.format).kind !== 'image' || !(await isBlankImage(ctx.output!.body))) return;
      if (ctx.options.fail_if_blank) {
        throw new AppError('blank_capture', 'the capture is blank: a single colour', {
          details: [{ parameter: 'fail_if_blank', message: 'every pixel of the image has the same colour' }],
        });
      }
      ctx.warnings.add('blank');
    },
  },
  {
    // After the main output and its checks; pdf last, since printing turns the page to print media.
    name: 'extra_formats',
    async run(ctx) {
      const formats = [...(ctx.options.extra_formats ?? [])].sort((a, b) => Number(a === 'pdf') - Number(b === 'pdf'));
      ctx.extra = [];
      for (const format of formats) {
        const output = await RENDERERS[format]({ ...ctx, options: { ...ctx.options, format } });
        for (const warning of output.warnings ?? []) ctx.warnings.add(warning);
        ctx.extra.push({ format, contentType: formatOf(format).contentType, body: output.body });
      }
    },
  },
];

/** An animation (/v1/animate): the same page steps, then frames recorded over time and encoded. */
export const ANIMATE_STEPS: readonly CaptureStep[] = [
  ...PAGE_STEPS,
  {
    // Its phases (capture: the frames, encode: ffmpeg's end) are measured inside.
    name: 'record',
    async run(ctx) {
      ctx.output = await recordAnimation(ctx, ctx.video, ctx.signal);
    },
  },
];

/** The steps of a capture with these options. */
export const stepsFor = (options: TakeOptions): readonly CaptureStep[] => (options.animation ? ANIMATE_STEPS : CAPTURE_STEPS);

function takeFormat(format: Format): TakeFormat {
  if (format === 'mp4' || format === 'webm') throw new Error(`${format} is recorded (ANIMATE_STEPS), not rendered`);
  return format;
}
