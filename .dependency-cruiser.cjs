/**
 * Which way imports may point (docs/architecture.md, "Layers"). Bottom to top:
 *   errors, util, values, version  →  config, observability  →  db, usage, egress, storage
 *   → options, formats, encoders, capture  →  ratelimit → accounts  →  take  →  jobs  →  dashboard, http  →  service.ts, cli
 * `make test` runs this; a new import against the direction fails the build.
 */
const FEATURES = '^src/(accounts|capture|dashboard|db|egress|encoders|formats|http|jobs|options|ratelimit|take|storage|usage)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle between modules (type-only imports excluded: they vanish at runtime).',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'bottom-imports-nothing-above',
      severity: 'error',
      comment: 'errors/, util/ and values/ are the bottom: small, pure, importable from anywhere.',
      from: { path: '^src/(errors|util|values)/' },
      to: { path: '^src/', pathNot: '^src/(errors|util|values)/' },
    },
    {
      name: 'config-imports-no-feature',
      severity: 'error',
      comment: 'config/ parses settings with values/ parsers; features read config, never the other way.',
      from: { path: '^src/(config|observability)/' },
      to: { path: FEATURES },
    },
    {
      name: 'only-entry-points-wire',
      severity: 'error',
      comment: 'src/service.ts and cli/ wire the parts; nothing below imports them.',
      from: { path: '^src/', pathNot: '^src/(service\\.ts|cli/)' },
      to: { path: '^src/(service\\.ts|cli/)' },
    },
    {
      name: 'http-is-the-top-feature',
      severity: 'error',
      comment: 'Only the HTTP layer (and the dashboard it mounts) imports http/ and dashboard/.',
      from: { path: '^src/', pathNot: '^src/(http|dashboard|service\\.ts|cli)' },
      to: { path: '^src/(http|dashboard)/' },
    },
    {
      name: 'storage-db-egress-below-features',
      severity: 'error',
      comment: 'Infrastructure knows nothing of accounts, limits, captures or options.',
      from: { path: '^src/(db|usage|egress|storage)/' },
      to: { path: '^src/(accounts|ratelimit|capture|options|encoders|dashboard|http)/' },
    },
    {
      name: 'limits-below-accounts',
      severity: 'error',
      comment: 'ratelimit/ counts; accounts/ decides what a plan allows and builds the meter over the limits.',
      from: { path: '^src/ratelimit/' },
      to: { path: '^src/accounts/' },
    },
    {
      name: 'capture-knows-no-tenants',
      severity: 'error',
      comment: 'The capture pipeline, its options and outputs know nothing of accounts, limits or storage.',
      from: { path: '^src/(capture|options|formats|encoders)/' },
      to: { path: '^src/(accounts|ratelimit|storage|db|usage)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
