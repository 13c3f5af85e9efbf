import type { FiltersEngine } from '@ghostery/adblocker';
import type { Page, Request } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import type { TakeOptions } from '../../options/schema.js';
import { addStyleSheet } from '../steps/add-style-sheet.js';
import type { AdblockEngineStore } from './adblock-engine.js';

/**
 * block_ads, block_cookie_banners and block_chats for one page, in two halves: request
 * blocking must be in place before navigation; hiding and consent handling act on the loaded page.
 */
export class PageBlocking {
  private engine?: FiltersEngine;
  /** The option that blocked each blocked request (debug bundles' blocked_by). */
  readonly blockedBy = new WeakMap<Request, string>();

  constructor(
    private readonly page: Page,
    private readonly options: TakeOptions,
    private readonly adblock: AdblockEngineStore | undefined,
    private readonly trackers: AdblockEngineStore | undefined,
  ) {}

  get active(): boolean {
    return this.options.block_ads || this.options.block_chats || this.options.block_cookie_banners;
  }

  /** Before navigation: ad, tracker, chat and the caller's blocked requests never leave the browser. */
  async beforeNavigation(): Promise<void> {
    const { block_ads, block_trackers, block_chats, block_requests = [], block_resources = [] } = this.options;
    if (block_ads) {
      this.engine = await this.adblock?.engine();
      if (!this.engine) {
        throw new AppError('not_implemented', 'block_ads is unavailable: no ad-block filter list could be loaded on this server');
      }
    }
    // block_ads holds EasyPrivacy already.
    const trackers = block_trackers && !block_ads ? await this.trackers?.engine() : undefined;
    if (block_trackers && !block_ads && !trackers) {
      throw new AppError('not_implemented', 'block_trackers is unavailable: no EasyPrivacy list could be loaded on this server');
    }
    if (this.engine || trackers || block_chats || block_requests.length > 0 || block_resources.length > 0) {
      const { blockRequests, urlPattern } = await import('./request-blocking.js');
      await blockRequests(this.page, {
        engines: [this.engine, trackers].filter((e) => e !== undefined),
        engineNames: [this.engine ? 'block_ads' : undefined, trackers ? 'block_trackers' : undefined].filter((e) => e !== undefined),
        onBlocked: (request, option) => this.blockedBy.set(request, option),
        chats: block_chats,
        patterns: block_requests.map(urlPattern),
        types: new Set(block_resources),
      });
    }
  }

  /** After the waits, before the capture: refuse consent, then hide what is left. */
  async afterLoad(): Promise<void> {
    // Each part is loaded on first use: captures without blocking flags never load the libraries.
    if (this.options.block_cookie_banners) await (await import('./cookie-banners.js')).rejectCookieBanners(this.page);
    if (this.options.block_chats) await addStyleSheet(this.page, (await import('./chat-providers.js')).CHAT_HIDING_CSS);
    if (this.engine) await (await import('./ad-cosmetics.js')).hideAds(this.page, this.engine);
  }
}
