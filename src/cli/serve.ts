import { ensureBootstrapKey } from '../accounts/bootstrap.js';
import { loadConfig } from '../config/load.js';
import { createService } from '../service.js';
import { withTimeout } from '../util/race-abort.js';

/** `shutter serve [--role all|worker]`: the service, until SIGINT or SIGTERM. */
export async function serve(role?: 'all' | 'worker'): Promise<void> {
  // Process start → here: Node's own start-up and loading the modules.
  const imported = performance.now();
  const config = loadConfig();
  const service = await createService(config, { launchEarly: true, ...(role ? { role } : {}) });
  const created = performance.now();
  const { accounts, app, logger } = service;
  logger.info(
    { database: accounts.db.dialect, limits: accounts.limits.backend, plans: accounts.plans.all().map((p) => p.name) },
    'accounts ready',
  );
  if (config.SHUTTER_BOOTSTRAP_KEY) {
    const record = await ensureBootstrapKey(accounts, config.SHUTTER_BOOTSTRAP_KEY);
    if (record.revokedAt) logger.warn({ keyId: record.id }, 'SHUTTER_BOOTSTRAP_KEY was revoked and stays revoked');
    else logger.info({ keyId: record.id }, 'bootstrap API key is ready on the operator account (SHUTTER_BOOTSTRAP_KEY)');
  }
  const launching = performance.now();
  await service.start();
  const started = performance.now();
  await app.listen({ port: config.SHUTTER_PORT, host: config.SHUTTER_HOST });
  const startup = {
    modules: Math.round(imported),
    service: Math.round(created - imported),
    browserWait: Math.round(started - launching),
    total: Math.round(performance.now()),
  };
  logger.info({ role: role ?? config.SHUTTER_ROLE, queue: service.jobs.queue.backend, startupMs: startup }, 'jobs ready');
  if ((role ?? config.SHUTTER_ROLE) === 'all' && (await accounts.keys.countActive()) === 0) {
    console.error(
      [
        '',
        `No API key exists yet. Sign up at http://localhost:${config.SHUTTER_PORT}/dashboard, or create one with:`,
        '  npx shutter keys create --name me',
        'or start with SHUTTER_BOOTSTRAP_KEY=<a secret of 16+ characters> set. Then:',
        `  curl -H "apikey: $KEY" "http://localhost:${config.SHUTTER_PORT}/v1/take?url=https://example.com" -o shot.png`,
        '',
      ].join('\n'),
    );
  }
  const shutdown = async (signal: string) => {
    const graceMs = config.SHUTTER_SHUTDOWN_TIMEOUT * 1000;
    logger.info({ signal, graceMs }, 'shutting down: no new requests, finishing the ones in flight');
    // app.close() stops accepting at once and resolves when in-flight requests are answered;
    // past the grace period the browser is closed under them, so they end with 503 and close() completes.
    // Job workers stop taking tasks at once too; a job cut short goes back to the queue (browser_unavailable).
    const closing = Promise.all([app.close(), service.jobs.queue.close(graceMs)]);
    const drained = await withTimeout(closing, graceMs).then(
      () => true,
      () => false,
    );
    if (!drained) logger.warn('captures still running after SHUTTER_SHUTDOWN_TIMEOUT; stopping them');
    await service.engine.close();
    // Without its browser every capture ends at once; what still does not close in a few seconds (a
    // client that never reads its answer, a database that does not answer) must not keep the process.
    const settled = await withTimeout(
      closing.then(() => service.close()),
      10_000,
    ).then(
      () => true,
      () => false,
    );
    if (!settled) logger.warn('the server or the database did not close 10 s after the browser stopped; exiting anyway');
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
