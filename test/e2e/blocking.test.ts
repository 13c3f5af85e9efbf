import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticResolver } from '../../src/egress/resolver.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { colourDistance, pixels, startService, type Rgb, type Service } from './harness.js';

const RED: Rgb = [255, 0, 0];
const BLUE: Rgb = [0, 0, 255];
const GREEN: Rgb = [0, 255, 0];

// Real third-party host names, answered by the local fixture server: never the internet.
const HOSTS = ['news.example', 'pagead2.googlesyndication.com', 'securepubads.g.doubleclick.net', 'js.driftt.com', 'embed.tawk.to'];

let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService({
    allowedPrivateNetworks: '127.0.0.1/32',
    resolve: staticResolver(Object.fromEntries(HOSTS.map((h) => [h, '127.0.0.1']))),
  });
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

const page = (name: string) => `http://news.example:${fixture.port}/blocking/${name}`;

async function shot(name: string, flags: Record<string, string> = {}) {
  const res = await service.app.inject({
    method: 'GET',
    url: '/v1/take',
    query: { url: page(name), viewport_width: '800', viewport_height: '600', ...flags },
    headers: { apikey: service.apiKey },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return pixels(res.rawPayload);
}

const isRed = (c: Rgb) => colourDistance(c, RED) < 40;

describe('block_ads', () => {
  // Element-hiding slots, a script from an ad network, an image from an ad server.
  const spots: Array<[number, number]> = [
    [150, 245],
    [550, 245],
    [150, 450],
    [550, 450],
  ];

  it('shows the ads without the flag (control)', async () => {
    const image = await shot('ads.html');
    for (const [x, y] of spots) expect(isRed(image.at(x, y)), `ad at ${x},${y}`).toBe(true);
  });

  it('removes them with block_ads=1 and keeps the page content', async () => {
    const image = await shot('ads.html', { block_ads: '1' });
    for (const [x, y] of spots) expect(isRed(image.at(x, y)), `ad at ${x},${y}`).toBe(false);
    expect(colourDistance(image.at(50, 50), BLUE)).toBeLessThan(40);
    // The ad servers never saw a request.
    const adRequests = fixture.requests.filter((r) => /ad-script|ad-banner/.test(r));
    expect(adRequests.length).toBe(2); // both from the control capture above
  });
});

describe('block_cookie_banners', () => {
  it('a OneTrust banner is visible without the flag (control)', async () => {
    const image = await shot('onetrust.html');
    expect(isRed(image.at(400, 550))).toBe(true);
    expect(colourDistance(image.at(50, 50), BLUE)).toBeLessThan(40);
  });

  it('with the flag, consent is refused through OneTrust itself: the banner is gone and the page shows the refusal', async () => {
    const image = await shot('onetrust.html', { block_cookie_banners: '1' });
    expect(isRed(image.at(400, 550))).toBe(false);
    expect(colourDistance(image.at(50, 50), GREEN)).toBeLessThan(40);
  });

  it('a Didomi notice (a declarative autoconsent rule) is refused through its own disagree button', async () => {
    const before = await shot('didomi.html');
    expect(isRed(before.at(400, 550))).toBe(true);
    const image = await shot('didomi.html', { block_cookie_banners: '1' });
    expect(isRed(image.at(400, 550))).toBe(false);
    expect(colourDistance(image.at(50, 50), GREEN)).toBeLessThan(40);
  });

  it('a home-made banner with a backdrop is hidden by the fallback, content stays', async () => {
    const before = await shot('consent-generic.html');
    expect(isRed(before.at(400, 400))).toBe(true);
    const after = await shot('consent-generic.html', { block_cookie_banners: '1' });
    expect(isRed(after.at(400, 400))).toBe(false);
    expect(colourDistance(after.at(50, 50), BLUE)).toBeLessThan(40);
    // The darkening backdrop went too: white page below the content.
    expect(colourDistance(after.at(400, 200), [255, 255, 255])).toBeLessThan(20);
  });
});

describe('block_chats', () => {
  const launcher: [number, number] = [800 - 50, 600 - 50];
  const tawk: [number, number] = [80, 460];
  const siteMarkup: [number, number] = [800 - 60, 240];

  it('Drift, Tawk.to and Intercom markup are visible without the flag (control)', async () => {
    const image = await shot('chats.html');
    expect(isRed(image.at(...launcher))).toBe(true);
    expect(isRed(image.at(...tawk))).toBe(true);
    expect(isRed(image.at(...siteMarkup))).toBe(true);
  });

  it('with the flag their scripts and frames never load and their markup is hidden', async () => {
    const before = fixture.requests.length;
    const image = await shot('chats.html', { block_chats: '1' });
    expect(isRed(image.at(...launcher))).toBe(false);
    expect(isRed(image.at(...tawk))).toBe(false);
    expect(isRed(image.at(...siteMarkup))).toBe(false);
    expect(colourDistance(image.at(50, 50), BLUE)).toBeLessThan(40);
    const chatRequests = fixture.requests.slice(before).filter((r) => /drift-widget|tawk-frame/.test(r));
    expect(chatRequests).toEqual([]);
  });
});

describe('a clean page', () => {
  it('is pixel-identical with and without all three flags', async () => {
    const plain = await shot('clean.html');
    const flagged = await shot('clean.html', { block_ads: '1', block_cookie_banners: '1', block_chats: '1' });
    expect([flagged.width, flagged.height]).toEqual([plain.width, plain.height]);
    expect(Buffer.compare(flagged.raw, plain.raw)).toBe(0);
  });
});
