import ipaddr from 'ipaddr.js';

/** RFC 1928 §6 reply codes. */
export const SOCKS_REPLY = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  networkUnreachable: 0x03,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  ttlExpired: 0x06,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;

const VERSION = 0x05;
const NO_AUTH = 0x00;
export const CONNECT = 0x01;
const ATYP_IPV4 = 0x01;
const ATYP_DOMAIN = 0x03;
const ATYP_IPV6 = 0x04;

/** The method-selection answer: "no authentication", or 0xFF when the client did not offer it. */
export const METHOD_NO_AUTH = Buffer.from([VERSION, NO_AUTH]);
export const METHOD_NONE_ACCEPTABLE = Buffer.from([VERSION, 0xff]);

/** What a parser made of the bytes so far: wait for more, or the parsed value and how many bytes it took. */
export type Parse<T> = 'incomplete' | { malformed: number } | ({ used: number } & T);

/** The client's greeting (VER NMETHODS METHODS): whether "no authentication" is among the methods offered. */
export function parseGreeting(data: Buffer): Parse<{ noAuth: boolean }> {
  if (data.length < 2) return 'incomplete';
  if (data[0] !== VERSION || data[1] === 0) return { malformed: SOCKS_REPLY.generalFailure };
  const used = 2 + data[1]!;
  if (data.length < used) return 'incomplete';
  return { used, noAuth: data.subarray(2, used).includes(NO_AUTH) };
}

/** A request (VER CMD RSV ATYP DST.ADDR DST.PORT); `malformed` holds the reply code to refuse it with. */
export function parseRequest(data: Buffer): Parse<{ command: number; host: string; port: number }> {
  if (data.length < 5) return 'incomplete';
  if (data[0] !== VERSION) return { malformed: SOCKS_REPLY.generalFailure };
  const atyp = data[3];
  const addressLength = atyp === ATYP_IPV4 ? 4 : atyp === ATYP_IPV6 ? 16 : atyp === ATYP_DOMAIN ? 1 + data[4]! : undefined;
  // Without a known address type the request's length is unknown: it is answered at once.
  if (addressLength === undefined) return { malformed: SOCKS_REPLY.addressTypeNotSupported };
  const used = 4 + addressLength + 2;
  if (data.length < used) return 'incomplete';
  const address = data.subarray(4, 4 + addressLength);
  const host = atyp === ATYP_IPV4 ? address.join('.') : atyp === ATYP_IPV6 ? ipv6Text(address) : domainText(address.subarray(1));
  const port = data.readUInt16BE(4 + addressLength);
  if (host === undefined || port === 0) return { malformed: SOCKS_REPLY.generalFailure };
  return { used, command: data[1]!, host, port };
}

/**
 * A host name as sent in the request. Chromium sends the URL's canonical host (punycode, IPv6
 * without brackets); anything that is not one printable token with no URL delimiters is refused,
 * so the name the gate checks is the whole name that was sent.
 */
function domainText(bytes: Buffer): string | undefined {
  const text = bytes.toString('latin1');
  return /^[\x21-\x7e]+$/.test(text) && !/[/?#@[\]\\]/.test(text) ? text : undefined;
}

function ipv6Text(bytes: Buffer): string {
  return ipaddr.fromByteArray([...bytes]).toString();
}

/** A reply (VER REP RSV ATYP BND.ADDR BND.PORT); the bound address defaults to 0.0.0.0:0. */
export function socksReply(code: number, bound?: { address?: string; port?: number }): Buffer {
  let atyp = ATYP_IPV4;
  let address = [0, 0, 0, 0];
  if (bound?.address && ipaddr.isValid(bound.address)) {
    const parsed = ipaddr.parse(bound.address);
    atyp = parsed.kind() === 'ipv6' ? ATYP_IPV6 : ATYP_IPV4;
    address = parsed.toByteArray();
  }
  const port = bound?.port ?? 0;
  return Buffer.from([VERSION, code, 0x00, atyp, ...address, port >> 8, port & 0xff]);
}
