/** The client's version: the Shutter server version it was built and tested against. */
export const VERSION = '0.1.0';
