export interface LaunchArgsOptions {
  /** The egress proxy (`socks5://127.0.0.1:<port>`) every connection of every page must go through. */
  proxyServer?: string;
  /** V8 heap cap of each renderer in MB: a memory-bomb page crashes its own renderer early. */
  jsHeapMb?: number;
}

/**
 * Chromium flags for a server: no background traffic, no GPU, no sandbox only when root
 * (Chromium refuses to start sandboxed as root), scrollbars hidden so captures are clean.
 *
 * No `--disable-features`/`--enable-features` here: Chromium keeps only the last occurrence of a
 * switch, so ours would silently replace Playwright's own list (PaintHolding, HttpsUpgrades, …).
 */
export function launchArgs(options: LaunchArgsOptions = {}): string[] {
  const args = [
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-extensions',
    '--disable-breakpad',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--hide-scrollbars',
    '--mute-audio',
    '--font-render-hinting=none',
    // WebRTC may only use proxied TCP, never raw UDP around the proxy. The first switch is the
    // headless shell's (a content switch), the second full Chromium's; each ignores the other.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
  if (options.proxyServer) args.push(...egressArgs(options.proxyServer));
  if (options.jsHeapMb) args.push(`--js-flags=--max-old-space-size=${Math.round(options.jsHeapMb)}`);
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return args;
}

/**
 * Everything through the egress proxy: Chromium bypasses proxies for loopback unless told
 * `<-loopback>`, and it resolves no host name itself (only the proxy does, once, and checks
 * the answer: Chromium's socks5 sends names, unlike socks4), so even a request that escaped the
 * proxy could not reach a named host. The proxy's own address is a literal, excluded from the map.
 */
function egressArgs(proxyServer: string): string[] {
  const proxyHost = new URL(proxyServer).hostname;
  return [
    `--proxy-server=${proxyServer}`,
    '--proxy-bypass-list=<-loopback>',
    `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE ${proxyHost}`,
  ];
}
