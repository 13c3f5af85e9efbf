import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Debian's openssl, when installed: the tests that need a certificate skip without it. */
export const OPENSSL: string | undefined = ['/usr/bin/openssl', '/usr/local/bin/openssl'].find((p) => existsSync(p));

/**
 * A one-day self-signed certificate for common name `cn`, with openssl's `-addext` extensions
 * (e.g. `subjectAltName=IP:127.0.0.1`), written to `dir` as key.pem and cert.pem.
 */
export function writeSelfSignedCert(dir: string, cn: string, extensions: readonly string[] = []): { keyPath: string; certPath: string } {
  if (!OPENSSL) throw new Error('openssl is not installed');
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  const extensionArgs = extensions.flatMap((extension) => ['-addext', extension]);
  execFileSync(
    OPENSSL,
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${cn}`,
      ...extensionArgs,
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return { keyPath, certPath };
}
