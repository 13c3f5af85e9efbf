import { describe, it } from 'vitest';

/**
 * PLACEHOLDER — property-based tests of the signed-link verifier (issue 16, "Robustness";
 * DESIGN.md §4.2 "signed links"). The verifier does not exist yet (it is being built separately),
 * so nothing is tested here; these todos say what to write once it lands, in the style of
 * options.test.ts and egress-address.test.ts (fast-check, default random seed):
 *
 * - adversarial links (arbitrary query strings, unicode, repeated or missing parameters,
 *   `__proto__`/`constructor` names, CR/LF, NUL, very long values, huge or negative expiry times,
 *   signatures of every length and alphabet) are refused with the error table's code, never a
 *   raw exception, and through `app.inject` never a 500;
 * - a link signed by the service verifies (round trip), for any generated option set;
 * - changing any single character of the options, the expiry or the signature makes it fail
 *   (reference model: an independent HMAC over the canonical form written in the test);
 * - the answer does not depend on parameter order or on the spelling of the same options, as the
 *   reference model's canonical form defines it;
 * - an expired link fails whatever else is right.
 *
 * (Not to be confused with src/storage/url-signer.ts, which signs upload=1 file links.)
 */
describe('signed-link verifier (not built yet)', () => {
  it.todo('refuses adversarial links with an error of the table, never a 500');
  it.todo('verifies every link it signed (round trip over generated option sets)');
  it.todo('refuses a link with any single character of options, expiry or signature changed');
  it.todo('agrees with a reference HMAC over the canonical form');
  it.todo('refuses an expired link');
});
