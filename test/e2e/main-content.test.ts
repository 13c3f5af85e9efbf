import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startService, type Service } from './harness.js';

let fixture: FixtureServer;
let service: Service;

beforeAll(async () => {
  fixture = await startFixtureServer();
  service = await startService();
});

afterAll(async () => {
  await service?.close();
  await stopFixtureServer(fixture);
});

const take = (query: Record<string, string>) =>
  service.app.inject({ method: 'GET', url: '/v1/take', query, headers: { apikey: service.apiKey } });

const article = () => `${fixture.baseUrl}/main-content/article.html`;

/** main_content captures of the fixture files, one per file: several tests read the same answer. */
const answers = new Map<string, ReturnType<typeof take>>();

/** The main_content Markdown of test/fixtures/main-content/<file>: a whole answer (200, no warning) holding these passages. */
async function storyOf(file: string, passages: readonly string[]): Promise<string> {
  if (!answers.has(file))
    answers.set(file, take({ url: `${fixture.baseUrl}/main-content/${file}`, format: 'markdown', main_content: '1' }));
  const res = await answers.get(file)!;
  expect(res.statusCode).toBe(200);
  expect(res.headers['x-shutter-warning']).toBeUndefined();
  for (const passage of passages) expect(res.body, passage).toContain(passage);
  return res.body;
}

/** The article's own text, in reading order. */
const ARTICLE = [
  'The river that ran backwards',
  'For three hours on Tuesday morning the Ebbwater did something nobody',
  'Hydrologists from the county water board said the reversal',
  'What the residents saw',
  'Marjorie Fell, who has lived beside the river for sixty-one years',
  'The bore reached the mill weir at 9:42 a.m.',
  'Measurements from the gauge',
  '09:40',
  'The board published the raw gauge readings the same afternoon',
  'print(max(levels))',
  'Engineers expect the next comparable combination of tide and wind',
];

/** One text of each boilerplate block around it. */
const BOILERPLATE = [
  'Subscribe for $1', // top bar
  'Skip to main content', // screen-reader-only link
  'Search the Courier', // site header
  'Obituaries', // navigation
  'Account settings in the drawer', // off-screen drawer
  'Council votes to repave', // ticker
  'Share on Facebook', // share bars, sticky and repeated
  'Shedland', // ad in the article
  'Swans return to the mill pond', // related stories
  'riverwatcher', // comments
  'Bakery wins national sourdough prize', // most read
  'Valley Motors', // ad in the sidebar
  'The Morning Brief', // newsletter box
  'All rights reserved', // footer
  'We use cookies', // cookie banner
  'Join 40,000 readers', // newsletter overlay
];

const expectArticle = (text: string) => {
  let at = -1;
  for (const passage of ARTICLE) {
    const found = text.indexOf(passage, at + 1);
    expect(found, `"${passage}" after position ${at}`).toBeGreaterThan(at);
    at = found;
  }
  for (const passage of BOILERPLATE) expect(text, passage).not.toContain(passage);
};

describe('main_content=1', () => {
  it('markdown: the article with its title, headings, list, table, code and image; nothing of the site around it', async () => {
    const res = await take({ url: article(), format: 'markdown', main_content: '1' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['x-shutter-warning']).toBeUndefined();
    const md = res.body;
    expectArticle(md);
    expect(md).toMatch(/^# The river that ran backwards$/m);
    expect(md).toMatch(/^## What the residents saw$/m);
    expect(md).toMatch(/^- The bore reached the mill weir/m);
    expect(md).toMatch(/\| 09:40 \| 2\.1 \|/);
    expect(md).toContain('```\nlevels = read_gauge("carrow")');
    expect(md).toMatch(/!\[The Ebbwater at low tide\]\(http:\/\/127\.0\.0\.1:\d+\/green\.svg\)/);
  });

  it('html: the same article as a document of its own', async () => {
    const res = await take({ url: article(), format: 'html', main_content: '1' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<title>The river that ran backwards</title>');
    expect(res.body).not.toContain('data-shutter');
    expectArticle(res.body.replace(/<[^>]+>/g, ''));
  });

  it('without it, the whole page (the boilerplate is there)', async () => {
    const res = await take({ url: article(), format: 'markdown' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Obituaries');
    expect(res.body).toContain('Bakery wins national sourdough prize');
  });

  it('with selector: the main content inside that element', async () => {
    const res = await take({ url: article(), format: 'markdown', main_content: '1', selector: '.content' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expectArticle(res.body);
  });

  it('hide_selectors applies first: hidden passages stay out', async () => {
    const res = await take({ url: article(), format: 'markdown', main_content: '1', 'hide_selectors[]': 'table' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Marjorie Fell');
    expect(res.body).not.toContain('09:40');
  });

  it('a portal of teasers has no main content: the whole page and a warning', async () => {
    const res = await take({ url: `${fixture.baseUrl}/main-content/portal.html`, format: 'markdown', main_content: '1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-warning']).toBe('main_content_not_found');
    expect(res.body).toContain('Council votes to repave the harbour road');
    expect(res.body).toContain('School wins robotics contest');
    const json = await take({
      url: `${fixture.baseUrl}/main-content/portal.html`,
      format: 'html',
      main_content: '1',
      response_type: 'json',
    });
    expect(json.json().warnings).toEqual(['main_content_not_found']);
  });

  it('a short news item is an article too (three short paragraphs, no long one)', async () => {
    const res = await take({ url: `${fixture.baseUrl}/main-content/brief.html`, format: 'markdown', main_content: '1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-shutter-warning']).toBeUndefined();
    expect(res.body).toContain('The morning ferry to Skerry Island was cancelled');
    expect(res.body).toContain("Freight for the island's shop and school");
    for (const passage of ['Lighthouse keeper', 'Log in', 'Privacy']) expect(res.body, passage).not.toContain(passage);
  });

  it('a brief of one paragraph in one box with its picture is the story, not a caption of the picture', async () => {
    const md = await storyOf('picture-brief.html', ['A pair of kingfishers has nested in the bank below lock 12', 'chicks fledge in June']);
    expect(md).toMatch(/!\[A kingfisher on a mooring post\]\(http:\/\/127\.0\.0\.1:\d+\/green\.svg\)/);
    for (const passage of ['The pair near lock 12', 'Narrowboat festival', 'Log in']) expect(md, passage).not.toContain(passage);
  });

  it('a short story in wrappers nested around it is read (its words twice are not a block repeated on the page); an author box so nested still goes', async () => {
    const md = await storyOf('nested-body.html', ['The town library will open on Sunday afternoons', 'Two new staff will be hired']);
    for (const passage of ['Tips and corrections', 'Log in', 'Privacy']) expect(md, passage).not.toContain(passage);
  });

  it('a short story in Japanese wins over a longer English notice below it', async () => {
    const md = await storyOf('dense-brief.html', ['市立図書館を４月の第１週から', '平日の夜間開館についても検討']);
    for (const passage of ['Harbour Media', 'ログイン']) expect(md, passage).not.toContain(passage);
  });

  it('inside the article: breadcrumbs, link-only lines and lists, captions and headings over nothing are left out; linked phrases in sentences stay', async () => {
    const md = await storyOf('inline-extras.html', [
      'The flooded quarry at Brackenfield will open',
      'Lifeguards will be on duty',
      "The council's minutes",
      'say the changing rooms will be built',
      'The parish budget',
      'The council will ask the county for a grant',
    ]);
    for (const passage of [
      'by clicking here',
      'Top video',
      'You may also like',
      'Otters spotted',
      'Join the conversation',
      'seen from the north rim',
      'Gazette archive',
      'Parish matters', // breadcrumbs: a nav element inside the story's column
    ])
      expect(md, passage).not.toContain(passage);
  });

  const pictures = () =>
    storyOf('pictures-datelines.html', [
      'Volunteers from the Vale Orchard Trust planted',
      'since it was founded on March 4, 2011.',
      'recognised it in 2019',
      'and took cuttings that winter',
      'these rows will feed the whole valley',
      'will graft another two thousand trees',
      'The first fruit is expected in four years',
    ]);

  it('pictures: a caption or credit beside an image goes and the image stays; a teaser card (an image linking elsewhere) goes whole; quotes and inline icons stay', async () => {
    const md = await pictures();
    for (const passage of ['Hal Brewer', 'first row of saplings', 'Cider festival returns']) expect(md, passage).not.toContain(passage);
    // The captioned image and the quote's image stay; the card's thumbnail goes with its card.
    expect(md.match(/!\[\]\([^)]*green\.svg\)/g)?.length).toBeGreaterThanOrEqual(2);
    expect(md).toMatch(/!\[:\)\]\([^)]*green\.svg\)/);
  });

  it("alt text that describes no picture (a file name, the article's title, the same words on several images) is emptied, the images kept", async () => {
    const md = await pictures();
    for (const passage of ['IMG_20260301', '#orchards', '![Orchard trust plants']) expect(md, passage).not.toContain(passage);
    expect(md).toMatch(/!\[A Cressbrook Pippin in blossom\]\([^)]*green\.svg\)/);
    expect(md.match(/!\[[^\]]*\]\([^)]*green\.svg\)/g)?.length).toBe(9);
  });

  it("a block saying again what an image's alt text says is its caption, even away from the picture", async () => {
    const md = await pictures();
    expect(md).toContain('![Pupils from Cressbrook primary school water the newly planted saplings');
    expect(md.split('Pupils from Cressbrook primary school').length).toBe(2);
  });

  it('a slideshow keeps its images and loses its fragments (counter, buttons, credits)', async () => {
    const md = await pictures();
    for (const passage of ['Image 1 of 6', 'Caption', 'Close', 'Jo Marsh']) expect(md, passage).not.toContain(passage);
  });

  it("a figure's words are its picture's, even when the picture never loaded", async () => {
    const md = await pictures();
    for (const passage of ['Image copyright', 'Cressbrook Archive']) expect(md, passage).not.toContain(passage);
  });

  it('a caption or a credit named so in the page goes, even without its picture', async () => {
    const md = await pictures();
    for (const passage of ['heeled in', 'Sam Okafor']) expect(md, passage).not.toContain(passage);
  });

  it('datelines (a short line with a clock time or a date that is not a sentence) go; dates in sentences stay', async () => {
    const md = await pictures();
    for (const passage of ['10:27 am', 'Posted 03/03/26']) expect(md, passage).not.toContain(passage);
  });

  const embeds = () =>
    storyOf('embeds-credits.html', [
      'A road sign put up on Monday',
      'many of them wondered aloud',
      'a contractor had used a list',
      'a strip of tape',
    ]);

  it('an embedded post quoted in the story stays, with its attribution, though its box is named like a widget', async () => {
    const md = await embeds();
    expect(md).toContain('Ended up at the edge of the reservoir looking at ducks');
    expect(md).toContain('(@moragpell)');
    expect(md.indexOf('looking at ducks')).toBeLessThan(md.indexOf('a contractor had used a list'));
  });

  it('an embedded post three boxes deep is one post, not a block repeated on the page', async () => {
    const md = await embeds();
    expect(md).toContain('We are looking into it.');
    expect(md).toContain('(@fenwickroads)');
  });

  it("an ad slot's label left over the empty slot goes", async () => {
    const md = await embeds();
    expect(md).not.toContain('Advertisement');
  });

  it("a hover card inside a sentence (a picture and the link's words again) goes; the sentence and its link stay", async () => {
    const md = await embeds();
    expect(md).toMatch(/The county councillor for the valley, \[Ada Quill\]\([^)]*\/people\/ada-quill\), said the mistake/);
    expect(md).not.toContain('Quill presses for a bigger roads budget');
  });

  it("fine print (a paragraph set clearly smaller than the story's text) goes", async () => {
    const md = await embeds();
    expect(md).not.toContain('Valley Press Holdings');
    expect(md).not.toContain('based in Marlow');
  });

  it('a short paragraph wholly in italics right under a picture is its caption', async () => {
    const md = await embeds();
    expect(md).not.toContain('seen from the dam');
  });

  it('a link line ending in a price is an offer and stays', async () => {
    const md = await embeds();
    expect(md).toContain('Get a replica of the sign at the county shop for $24.99');
  });

  it("a photo credit at the end of an alt text goes, the picture's description stays", async () => {
    const md = await embeds();
    expect(md).toMatch(/!\[The new sign at the Fenwick roundabout on Monday morning\.\]\([^)]*green\.svg\)/);
    expect(md).toMatch(/!\[Ducks on the reservoir where the drowned village of Lowmere once stood\]\([^)]*green\.svg\)/);
    for (const passage of ['Lena Brook', 'All rights reserved', 'Fenwick Archive']) expect(md, passage).not.toContain(passage);
  });

  it("of sibling article elements, the one with the page's h1 is the main content; the other posts' excerpts are left out", async () => {
    const md = await storyOf('sibling-posts.html', [
      'A grey heron can stand in the shallows',
      'The heron is waiting for the water to settle',
      'tuck the other leg',
    ]);
    for (const passage of ['Otters came back', 'Reed cutting starts']) expect(md, passage).not.toContain(passage);
  });

  it("the site's calls to action after the story (tip line, newsletter, cookie notice) go; the story's own sign-up sentence stays", async () => {
    const md = await storyOf('calls-to-action.html', [
      'Volunteers counting booming bitterns',
      '[sign up at the visitor centre]',
      'in the west bay',
      '[publish its results]',
    ]);
    for (const passage of ['Have a tip?', 'nature@marsh-gazette.test', 'in your inbox', 'Sign up for our newsletter', 'uses cookies'])
      expect(md, passage).not.toContain(passage);
  });

  it('a heading at the end over what is left of a widget (a comment counter) goes with it', async () => {
    const md = await storyOf('calls-to-action.html', ['in the west bay']);
    for (const passage of ['Tell us what you think', 'comments']) expect(md, passage).not.toContain(passage);
  });

  it("the title is the page's own headline when the page title only adds the site's name to it", async () => {
    const story =
      '<p>The ferry to the island will run twice a day from March, the harbour board said on Monday, after a winter in which storms kept it in port for weeks.</p>' +
      '<p>Islanders had asked for a second crossing for years; the board says the new timetable needs two more crew, who start in February.</p>';
    const titleOf = async (head: string, body: string) => {
      const html = `<!DOCTYPE html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
      const res = await take({ html, format: 'markdown', main_content: '1' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-shutter-warning']).toBeUndefined();
      return res.body.split('\n')[0];
    };
    // Readability leaves a site's name behind an em dash, and an og:title's kicker, in its title.
    const headline = '<article><h1>Second daily ferry for the island</h1>' + story + '</article>';
    expect(await titleOf('<title>Second daily ferry for the island — Harbour Post</title>', headline)).toBe(
      '# Second daily ferry for the island',
    );
    expect(
      await titleOf('<title>x</title><meta property="og:title" content="Transport: Second daily ferry for the island">', headline),
    ).toBe('# Second daily ferry for the island');
    // A site whose h1 is its name: the shorter part of the title, never taken for the headline.
    expect(
      await titleOf(
        '<title>Second daily ferry for the island — Harbour Post</title>',
        '<header><h1>Harbour Post</h1></header><article><h2>Second daily ferry for the island</h2>' + story + '</article>',
      ),
    ).toBe('# Second daily ferry for the island — Harbour Post');
  });

  it('does not apply to image formats or pdf', async () => {
    for (const format of ['png', 'pdf']) {
      const res = await take({ url: article(), format, main_content: '1' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('parameter_not_applicable');
      expect(res.json().error.details[0].parameter).toBe('main_content');
    }
  });
});
