/**
 * Chromium flags for a server: no background traffic, no GPU, no sandbox only when root
 * (Chromium refuses to start sandboxed as root), scrollbars hidden so captures are clean.
 */
export function launchArgs(): string[] {
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
    '--disable-features=Translate,MediaRouter,OptimizationHints,AcceptCHFrame',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return args;
}
