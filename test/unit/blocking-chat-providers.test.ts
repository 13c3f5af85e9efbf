import { describe, expect, it } from 'vitest';
import { CHAT_HIDING_CSS, CHAT_PROVIDERS, isChatRequest } from '../../src/capture/blocking/chat-providers.js';
import { isValidSelector } from '../../src/options/selectors.js';

describe('chat providers table', () => {
  it('covers the providers the product promises', () => {
    const names = CHAT_PROVIDERS.map((p) => p.name).join(' | ');
    for (const name of [
      'Intercom',
      'Drift',
      'Crisp',
      'Zendesk',
      'HubSpot',
      'Tawk.to',
      'LiveChat',
      'Olark',
      'Tidio',
      'Freshchat',
      'Gorgias',
      'Help Scout',
      'Front',
      'Chatwoot',
      'Smartsupp',
      'JivoChat',
      'Userlike',
      'Zoho SalesIQ',
      'LivePerson',
      'Facebook',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('every selector parses', () => {
    for (const p of CHAT_PROVIDERS) for (const s of p.selectors) expect(isValidSelector(s), `${p.name}: ${s}`).toBe(true);
    expect(CHAT_HIDING_CSS).toContain('#intercom-container { display: none !important; }');
  });

  it('matches provider hosts and their subdomains, and nothing else', () => {
    expect(isChatRequest('https://widget.intercom.io/widget/abc')).toBe(true);
    expect(isChatRequest('https://js.driftt.com/include/1/x.js')).toBe(true);
    expect(isChatRequest('https://eu.static.zdassets.com/ekr/snippet.js')).toBe(true);
    expect(isChatRequest('https://embed.tawk.to/123/default')).toBe(true);
    expect(isChatRequest('https://example.com/intercom.io/x.js')).toBe(false);
    expect(isChatRequest('https://notintercom.io/')).toBe(false);
    expect(isChatRequest('https://example.com/')).toBe(false);
    expect(isChatRequest('not a url')).toBe(false);
  });

  it('host entries with a path only match that path', () => {
    expect(isChatRequest('https://api.hubspot.com/livechat-public/v1/message')).toBe(true);
    expect(isChatRequest('https://api.hubspot.com/forms/v2/submit')).toBe(false);
  });

  it('Facebook customer chat is matched by its script path, not all of facebook.net', () => {
    expect(isChatRequest('https://connect.facebook.net/en_US/sdk/xfbml.customerchat.js')).toBe(true);
    expect(isChatRequest('https://connect.facebook.net/en_US/sdk.js')).toBe(false);
  });
});
