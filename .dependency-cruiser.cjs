/**
 * Which way imports may point (docs/architecture.md, "Layers"). Bottom to top; a folder may import
 * its own layer's folders and any layer below, never one above:
 */
const LAYERS = [
  ['errors', 'util', 'values', 'version\\.ts', 'types'],
  ['config', 'observability', 'formats'],
  ['db', 'usage', 'requests', 'egress', 'storage'],
  ['options'],
  ['encoders'],
  ['capture'],
  ['cache'],
  ['ratelimit'],
  ['accounts'],
  ['take'],
  ['jobs', 'mcp'],
  ['dashboard', 'http'],
  ['service\\.ts', 'cli'],
];
/** `make test` runs this; a new import against the direction, or a new folder missing from LAYERS, fails the build. */

const pathOf = (folders) => `^src/(${folders.join('|')})(/|$)`;

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${i}-imports-nothing-above`,
  severity: 'error',
  comment: `${layer.join(', ')} may not import ${LAYERS.slice(i + 1)
    .flat()
    .join(', ')}.`,
  from: { path: pathOf(layer) },
  to: { path: pathOf(LAYERS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle between modules, type-only imports included: each module should be readable from the ones below it.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'every-folder-has-a-layer',
      severity: 'error',
      comment: 'A folder of src/ missing from LAYERS would escape the direction check: add it to its layer.',
      from: { path: '^src/', pathNot: pathOf(LAYERS.flat()) },
      to: {},
    },
    ...layerRules,
    {
      name: 'formats-are-data',
      severity: 'error',
      comment: 'formats/ describes the output formats; rendering them is the capture layer’s (DESIGN.md §5.1).',
      from: { path: '^src/formats/' },
      to: { path: '^src/', pathNot: '^src/(formats|errors|util|values)/' },
    },
    {
      name: 'encoders-take-pixels',
      severity: 'error',
      comment: 'Encoders get pixels and their own settings, never the request’s options (DESIGN.md §5.1).',
      from: { path: '^src/encoders/' },
      to: { path: '^src/options/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
