/**
 * Live-chat widgets that block_chats removes: requests to their hosts are blocked (the widget
 * never loads) and their elements are hidden (for markup a site renders itself). To add a
 * provider, add an entry; a host matches itself and its subdomains.
 */
export interface ChatProvider {
  name: string;
  hosts: readonly string[];
  /** Substrings of URLs on shared hosts (e.g. facebook.net), where blocking the host would break more. */
  urlPatterns?: readonly string[];
  selectors: readonly string[];
}

export const CHAT_PROVIDERS: readonly ChatProvider[] = [
  {
    name: 'Intercom',
    hosts: ['widget.intercom.io', 'js.intercomcdn.com', 'api-iam.intercom.io', 'api-iam.eu.intercom.io', 'nexus-websocket-a.intercom.io'],
    selectors: [
      '#intercom-container',
      '#intercom-frame',
      '.intercom-lightweight-app',
      '.intercom-launcher',
      'iframe[name="intercom-launcher-frame"]',
      '.intercom-namespace',
    ],
  },
  {
    name: 'Drift',
    hosts: ['js.driftt.com', 'widget.drift.com', 'event.api.drift.com', 'customer.api.drift.com'],
    selectors: [
      '#drift-widget',
      '#drift-widget-container',
      '#drift-frame-controller',
      '#drift-frame-chat',
      'iframe.drift-frame-controller',
      'iframe.drift-frame-chat',
    ],
  },
  {
    name: 'Crisp',
    hosts: ['client.crisp.chat', 'settings.crisp.chat', 'client.relay.crisp.chat', 'image.crisp.chat'],
    selectors: ['#crisp-chatbox', '.crisp-client'],
  },
  {
    name: 'Zendesk (Web Widget, Messaging, Chat)',
    hosts: ['static.zdassets.com', 'ekr.zdassets.com', 'widget-mediator.zopim.com', 'v2.zopim.com', 'zopim.com'],
    selectors: [
      '#launcher',
      'iframe#launcher',
      '#webWidget',
      'iframe#webWidget',
      'div[data-product="web_widget"]',
      'iframe[title="Button to launch messaging window"]',
      'iframe[title="Messaging window"]',
      '.zopim',
    ],
  },
  {
    name: 'HubSpot chat',
    hosts: ['js.usemessages.com', 'api.hubspot.com/livechat-public', 'js.hs-banner.com'],
    selectors: ['#hubspot-messages-iframe-container', '.hs-messages-widget-open', 'iframe#hubspot-conversations-iframe'],
  },
  {
    name: 'Tawk.to',
    hosts: ['embed.tawk.to', 'va.tawk.to', 'tawk.link'],
    selectors: ['#tawkchat-container', '.tawk-min-container', 'iframe[title="chat widget"]', 'div[id^="tawk-"]'],
  },
  {
    name: 'LiveChat',
    hosts: ['cdn.livechatinc.com', 'secure.livechatinc.com', 'api.livechatinc.com'],
    selectors: ['#chat-widget-container', '#livechat-compact-container', '#livechat-full', 'iframe#chat-widget'],
  },
  {
    name: 'Olark',
    hosts: ['static.olark.com', 'olark.com'],
    selectors: ['#olark-wrapper', '#olark', '.olark-launch-button', '#olark-container'],
  },
  {
    name: 'Tidio',
    hosts: ['code.tidio.co', 'widget-v4.tidiochat.com', 'tidiochat.com', 'socket.tidio.co'],
    selectors: ['#tidio-chat', '#tidio-chat-iframe', 'iframe#tidio-chat-iframe'],
  },
  {
    name: 'Freshchat / Freshdesk',
    hosts: [
      'wchat.freshchat.com',
      'snippets.freshchat.com',
      'assetscdn-wchat.freshchat.com',
      'widget.freshworks.com',
      'euc-widget.freshworks.com',
    ],
    selectors: ['#fc_frame', '#freshworks-container', '#freshworks-frame', 'iframe#launcher-frame', '#fc_widget'],
  },
  {
    name: 'Gorgias',
    hosts: ['config.gorgias.chat', 'assets.gorgias.chat', 'gorgias.chat', 'client-builds.production.gorgias.help'],
    selectors: ['#gorgias-chat-container', '#gorgias-web-messenger-container', 'iframe#chat-button'],
  },
  {
    name: 'Help Scout Beacon',
    hosts: ['beacon-v2.helpscout.net', 'beaconapi.helpscout.net'],
    selectors: ['#beacon-container', '.BeaconFabButtonFrame', '#HSBeaconFabButton', '.BeaconContainer'],
  },
  {
    name: 'Front Chat',
    hosts: ['chat-assets.frontapp.com', 'chat.frontapp.com', 'chat-server.frontapp.com'],
    selectors: ['#front-chat-container', '#front-chat-iframe', 'iframe[title="Front Chat"]'],
  },
  {
    name: 'Chatwoot',
    hosts: ['app.chatwoot.com'],
    selectors: ['.woot-widget-holder', '.woot--bubble-holder', '#chatwoot_live_chat_widget', '.woot-widget-bubble'],
  },
  {
    name: 'Smartsupp',
    hosts: ['www.smartsuppchat.com', 'smartsuppchat.com', 'smartsuppcdn.com', 'smartsupp.com'],
    selectors: ['#chat-application', '#smartsupp-widget-container', 'iframe#chat-application-iframe'],
  },
  {
    name: 'JivoChat',
    hosts: ['code.jivosite.com', 'code-eu1.jivosite.com', 'jivosite.com', 'code.jivo.ru'],
    selectors: ['jdiv', '#jivo-iframe-container', '.jivo-iframe-container', '#jcont'],
  },
  {
    name: 'Userlike',
    hosts: ['userlike-cdn-widgets.s3-eu-west-1.amazonaws.com', 'api.userlike.com', 'widget.userlike.com'],
    selectors: ['#userlike', '#userlike-tab', 'div[id^="userlike-"]', 'iframe[id^="userlike-"]'],
  },
  {
    name: 'Zoho SalesIQ',
    hosts: ['salesiq.zoho.com', 'salesiq.zoho.eu', 'salesiq.zohopublic.com', 'salesiq.zohopublic.eu'],
    selectors: ['#zsiq_float', '.zsiq_floatmain', '#zsiqwidget', '.siqembed', '[data-id="zsalesiq"]', '.zsiq_custommain'],
  },
  {
    name: 'LivePerson',
    hosts: ['lptag.liveperson.net', 'liveperson.net', 'lpsnmedia.net', 'lpcdn.lpsnmedia.net'],
    selectors: ['.LPMcontainer', '#lpChat', '.lp_maximized', '.lp_minimized', 'div[data-lp-event="click"]'],
  },
  {
    name: 'Facebook customer chat',
    hosts: [],
    urlPatterns: ['connect.facebook.net/', '/sdk/xfbml.customerchat.js'],
    selectors: ['.fb-customerchat', '.fb_dialog', 'iframe[data-testid="bubble_iframe"]', '.fb_customer_chat_bubble_pop_in'],
  },
];

/** True when a request URL belongs to a chat widget. */
export function isChatRequest(url: string): boolean {
  let host: string;
  let rest: string;
  try {
    const parsed = new URL(url);
    host = parsed.hostname.toLowerCase();
    rest = host + parsed.pathname;
  } catch {
    return false;
  }
  return CHAT_PROVIDERS.some(
    (p) =>
      p.hosts.some((h) => {
        const [domain, path] = h.split(/\/(.*)/s) as [string, string?];
        const hostMatches = host === domain || host.endsWith(`.${domain}`);
        return hostMatches && (path === undefined || rest.startsWith(`${host}/${path}`));
      }) || (p.urlPatterns?.length ? p.urlPatterns.every((s) => rest.includes(s)) : false),
  );
}

/** One stylesheet hiding every provider's elements. */
export const CHAT_HIDING_CSS = CHAT_PROVIDERS.flatMap((p) => p.selectors)
  .map((s) => `${s} { display: none !important; }`)
  .join('\n');
