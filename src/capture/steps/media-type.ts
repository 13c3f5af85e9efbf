import type { CDPSession } from 'playwright-core';

/** media_type=print for images, markdown and html: set before navigation, so the page's scripts see it too (matchMedia('print')). */
export async function emulateMediaType(cdp: CDPSession, mediaType: 'screen' | 'print'): Promise<void> {
  if (mediaType === 'print') await cdp.send('Emulation.setEmulatedMedia', { media: 'print' });
}
