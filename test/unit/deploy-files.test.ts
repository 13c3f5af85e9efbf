import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { configSchema } from '../../src/config/schema.js';
import { Metrics } from '../../src/observability/metrics.js';
import { parseYaml, parseYamlDocuments, type YamlValue } from '../helpers/yaml.js';

// No container engine or cluster runs here: the Dockerfile, compose file, Helm chart and Grafana
// dashboard are checked statically (docs/deploy.md, "What was not run here"). nginx is run for real
// by test/e2e/nginx-lb.test.ts.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const HELM = 'deploy/helm/shutter';

type Obj = { [key: string]: YamlValue };
const isObj = (v: YamlValue | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: YamlValue | undefined, what: string): Obj => {
  if (!isObj(v)) throw new Error(`${what} is not a mapping`);
  return v;
};

/**
 * SHUTTER_ variables the deployment files may name before they reach src/config/schema.ts, because they
 * are being added in the same issue. Once a name is in the schema its entry is moot.
 */
const PENDING_VARIABLES: string[] = [];
/** Not service settings but the test suite's own switch, which docs/deploy.md names (test/helpers/db.ts). */
const TEST_SUITE_VARIABLES = ['SHUTTER_TEST_REQUIRE_SERVICES'];
/** Read by scripts/install-system-deps.sh when it installs, not by the service (docs/fonts.md). */
const INSTALL_VARIABLES = ['SHUTTER_FONTS'];
const KNOWN_VARIABLES = new Set([...Object.keys(configSchema.shape), ...PENDING_VARIABLES, ...TEST_SUITE_VARIABLES, ...INSTALL_VARIABLES]);

/**
 * Every SHUTTER_ name in `text` that is not a known variable. `SHUTTER_S3_*` stands for a family and
 * passes when some variable starts with `SHUTTER_S3_`.
 */
function unknownShutterVariables(text: string, known: ReadonlySet<string> = KNOWN_VARIABLES): string[] {
  const unknown = new Set<string>();
  for (const match of text.matchAll(/(?<![A-Za-z0-9_])SHUTTER_[A-Z0-9_]+(\*)?/g)) {
    const [name, star] = [match[0].replace(/\*$/, ''), match[1]];
    const ok = star ? [...known].some((k) => k.startsWith(name)) : known.has(name);
    if (!ok) unknown.add(match[0]);
  }
  return [...unknown];
}

/** Files under a directory, relative to the repository. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

const DEPLOY_FILES = ['Dockerfile', '.dockerignore', 'docs/deploy.md', ...filesUnder('deploy')];

describe('SHUTTER_ variables in the deployment files', () => {
  it('the checker catches a misspelt variable planted in a string, and a family pattern only when it matches', () => {
    expect(unknownShutterVariables('SHUTTER_PORT=8080 SHUTTER_REDIS_URLL=redis://x SHUTTER_S3_* SHUTTER_NOPE_*')).toEqual([
      'SHUTTER_REDIS_URLL',
      'SHUTTER_NOPE_*',
    ]);
    expect(unknownShutterVariables('MY_SHUTTER_THING and SHUTTER_TRUST_PROXY: "1"')).toEqual([]);
    // Planted in the real compose file: one letter off is caught.
    const compose = read('deploy/compose.yaml');
    expect(compose).toContain('SHUTTER_TRUST_PROXY:');
    expect(unknownShutterVariables(compose.replace('SHUTTER_TRUST_PROXY:', 'SHUTTER_TRUST_PROXIES:'))).toEqual(['SHUTTER_TRUST_PROXIES']);
    expect(unknownShutterVariables(compose.replace('SHUTTER_S3_BUCKET', 'SHUTTER_S3_BUKET'))).toEqual(['SHUTTER_S3_BUKET']);
  });

  it('every SHUTTER_ name in the Dockerfile, compose, nginx, Helm and docs/deploy.md is in the config schema', () => {
    const found = new Map<string, string[]>();
    for (const file of DEPLOY_FILES) {
      const text = read(file);
      const unknown = unknownShutterVariables(text);
      if (unknown.length > 0) found.set(file, unknown);
    }
    expect(Object.fromEntries(found)).toEqual({});
    // The files do name variables (the check is not vacuous).
    const named = (file: string) => new Set(read(file).match(/SHUTTER_[A-Z0-9_]+/g)).size;
    expect(named('deploy/compose.yaml')).toBeGreaterThanOrEqual(20);
    expect(named(`${HELM}/values.yaml`)).toBeGreaterThanOrEqual(15);
    expect(named('docs/deploy.md')).toBeGreaterThanOrEqual(10);
    expect(named('Dockerfile')).toBeGreaterThanOrEqual(3);
  });
});

describe('YAML parsing (prettier bundled parser)', () => {
  it('turns block and flow collections, scalars, anchors and merge keys into values', async () => {
    const doc = await parseYaml('a: &base\n  x: 1\n  y: "2"\nb:\n  <<: *base\n  y: three\nc: [true, ~, 0x10, 1.5]\nd: |\n  line\n');
    expect(doc).toEqual({ a: { x: 1, y: '2' }, b: { x: 1, y: 'three' }, c: [true, null, 16, 1.5], d: 'line\n' });
  });

  it('refuses bad YAML and duplicate keys', async () => {
    await expect(parseYaml('a: [1\n')).rejects.toThrow();
    await expect(parseYaml('a:\n  - 1\n b: 2\n')).rejects.toThrow();
    await expect(parseYaml('a: 1\na: 2\n')).rejects.toThrow(/duplicate key a/);
    await expect(parseYaml('replicas: {{ .Values.x }}\nkind: A\n{{- end }}\n')).rejects.toThrow();
  });
});

/** Compose's ${VAR:-default}, ${VAR:?error}, ${VAR} and $$, as if the shell exported nothing. */
function interpolate(value: string): string {
  return value
    .split('$$')
    .map((part) =>
      part.replace(/\$\{([A-Z0-9_]+)(?::?([-?])([^}]*))?\}/g, (_all, name: string, op?: string, arg?: string) => {
        if (op === '-') return arg ?? '';
        // Required variables (":?") get a value of the kind they ask for.
        if (op === '?') return name === 'SHUTTER_SIGNING_SECRET' ? 'x'.repeat(48) : 'set';
        return '';
      }),
    )
    .join('$');
}

describe('deploy/compose.yaml', async () => {
  const compose = obj(await parseYaml(read('deploy/compose.yaml')), 'compose');
  const services = obj(compose.services, 'services');
  const shutterServices = ['shutter-api-1', 'shutter-api-2', 'shutter-worker'];
  const env = (name: string) =>
    Object.fromEntries(
      Object.entries(obj(obj(services[name], name).environment, `${name}.environment`)).map(([k, v]) => [k, interpolate(String(v))]),
    );

  it('has two API nodes, a worker, nginx, Postgres, Redis and an S3-compatible store', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['minio', 'minio-init', 'nginx', 'postgres', 'redis', 'shutter-api-1', 'shutter-api-2', 'shutter-worker'].sort(),
    );
    for (const name of shutterServices) {
      const service = obj(services[name], name);
      expect(service.build, name).toEqual({ context: '..', dockerfile: 'Dockerfile' });
      expect(existsSync(join(ROOT, 'deploy', '..', 'Dockerfile'))).toBe(true);
      // Only nginx is published: SHUTTER_TRUST_PROXY=1 is safe only when nothing reaches the nodes directly.
      expect(service.ports, name).toBeUndefined();
      expect(service.init, name).toBe(true);
    }
    expect(obj(services['shutter-api-1'], 'api').command).toBeUndefined();
    expect(obj(services['shutter-worker'], 'worker').command).toEqual(['node', 'dist/bundle/main.js', 'serve', '--role', 'worker']);
    expect(obj(services.nginx, 'nginx').ports).toEqual(['8080:80']);
  });

  it('every dependency is a service of the file', () => {
    for (const [name, service] of Object.entries(services)) {
      const deps = obj(service, name).depends_on;
      const list = Array.isArray(deps) ? deps : isObj(deps) ? Object.keys(deps) : [];
      for (const dep of list) expect(Object.keys(services), `${name} depends on ${String(dep)}`).toContain(String(dep));
    }
  });

  it("each Shutter node's environment passes the config schema and points at the compose services", () => {
    for (const name of shutterServices) {
      const vars = env(name);
      const config = loadConfig(vars);
      expect(config.SHUTTER_TRUST_PROXY, name).toBe(true);
      expect(config.SHUTTER_STORAGE, name).toBe('s3');
      expect(config.SHUTTER_SIGNING_SECRET, name).toBeDefined();
      expect(Object.keys(services)).toContain(new URL(config.SHUTTER_DATABASE_URL!).hostname);
      expect(Object.keys(services)).toContain(new URL(config.SHUTTER_REDIS_URL!).hostname);
      expect(Object.keys(services)).toContain(new URL(config.SHUTTER_S3_ENDPOINT!).hostname);
      // Stored files are linked through nginx, which serves /files/captures/ from the bucket.
      expect(config.SHUTTER_S3_PUBLIC_BASE_URL).toBe('http://localhost:8080/files/');
      expect(config.SHUTTER_S3_PREFIX).toBe('captures/');
      expect(Object.keys(vars)).toContain('SHUTTER_METRICS_TOKEN');
    }
    // The nodes are interchangeable: the same environment everywhere.
    expect(env('shutter-api-2')).toEqual(env('shutter-api-1'));
    expect(env('shutter-worker')).toEqual(env('shutter-api-1'));
  });

  it('nginx balances over both API nodes with the proxy settings mounted where nginx.conf includes them', () => {
    const nginx = read('deploy/nginx.conf');
    const upstream = /upstream\s+shutter_api\s*\{([^}]*)\}/.exec(nginx)?.[1] ?? '';
    const port = loadConfig(env('shutter-api-1')).SHUTTER_PORT;
    expect([...upstream.matchAll(/server\s+([^\s;]+)/g)].map((m) => m[1])).toEqual([`shutter-api-1:${port}`, `shutter-api-2:${port}`]);
    const volumes = (obj(services.nginx, 'nginx').volumes as string[]).map((v) => v.split(':'));
    const mounted = new Map(volumes.map(([from, to]) => [to!, from!]));
    expect(mounted.get('/etc/nginx/nginx.conf')).toBe('./nginx.conf');
    const include = /include\s+(\/etc\/nginx\/shutter-proxy\.conf);/.exec(nginx)?.[1];
    expect(include).toBeDefined();
    expect(mounted.get(include!)).toBe('./nginx-proxy.conf');
    for (const [from] of volumes) expect(existsSync(join(ROOT, 'deploy', from!)), from).toBe(true);
    // MinIO behind /files/captures/, the bucket and prefix of the nodes' environment.
    expect(nginx).toMatch(/location \/files\/captures\/ \{[\s\S]*?proxy_pass http:\/\/minio:9000\/shots\/captures\/;/);
    expect(read('deploy/nginx-proxy.conf')).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(read('deploy/nginx-proxy.conf')).toMatch(/proxy_set_header X-Forwarded-Proto \$scheme;/);
  });
});

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function dockerInstructions(text: string): Array<{ op: string; args: string }> {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

/** The commands of a Makefile target's recipe, without the @ that silences them. */
function makeRecipe(makefile: string, target: string): string[] {
  const lines = makefile.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${target}:`));
  if (start < 0) throw new Error(`no target ${target} in the Makefile`);
  const recipe: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('\t')) break;
    recipe.push(line.slice(1).replace(/^@/, '').trim());
  }
  return recipe;
}

describe('Dockerfile', () => {
  const steps = dockerInstructions(read('Dockerfile'));
  const runs = steps.filter((s) => s.op === 'RUN').map((s) => s.args);
  const makefile = read('Makefile');

  it('starts from Debian bookworm slim with the current Node LTS', () => {
    const froms = steps.filter((s) => s.op === 'FROM').map((s) => s.args.split(' ')[0]);
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toBe('node:24-bookworm-slim');
  });

  it('installs Chromium and fonts with the very command `make start` runs, and builds like `make build`', () => {
    const systemDeps = makeRecipe(makefile, 'system-deps');
    expect(systemDeps).toEqual(['bash scripts/install-system-deps.sh']);
    expect(runs.some((r) => r.split('&&').map((c) => c.trim())[0] === systemDeps[0])).toBe(true);
    // No other package installation: the script is the one place that decides what the OS provides.
    expect(runs.filter((r) => /apt-get\s+install|apt\s+install/.test(r))).toEqual([]);
    // The script is copied to the path the command names.
    expect(steps.some((s) => s.op === 'COPY' && s.args === 'scripts/install-system-deps.sh scripts/install-system-deps.sh')).toBe(true);
    const build = makeRecipe(makefile, 'build');
    expect(build).toEqual(['npx tsc -p tsconfig.build.json', 'node scripts/bundle.mjs']);
    expect(runs).toContain(build.join(' && '));
    expect(steps.some((s) => s.op === 'COPY' && s.args === 'scripts/bundle.mjs ./scripts/bundle.mjs')).toBe(true);
    expect(runs.some((r) => /^npm ci\b/.test(r))).toBe(true);
  });

  it('runs as a non-root user with MALLOC_ARENA_MAX=2, a health check on /healthz and `serve`', () => {
    const users = steps.filter((s) => s.op === 'USER').map((s) => s.args);
    expect(users.at(-1)).toBeDefined();
    expect(['root', '0']).not.toContain(users.at(-1));
    expect(steps.filter((s) => s.op === 'ENV').some((s) => /(^|\s)MALLOC_ARENA_MAX=2(\s|$)/.test(s.args))).toBe(true);
    expect(makefile).toMatch(/MALLOC_ARENA_MAX=\$\$\{MALLOC_ARENA_MAX:-2\}/);
    const health = steps.find((s) => s.op === 'HEALTHCHECK');
    expect(health?.args).toContain('/healthz');
    expect(JSON.parse(steps.filter((s) => s.op === 'CMD').at(-1)!.args)).toEqual(['node', 'dist/bundle/main.js', 'serve']);
    // The entry `make start` runs, which make test's bench smoke and e2e tests start too.
    expect(makeRecipe(makefile, 'start').join('\n')).toContain('node dist/bundle/main.js serve');
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const isIgnored = (path: string) =>
      ignored.some((pattern) => {
        if (pattern.includes('*')) {
          const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
          return path.split('/').some((_part, i, parts) => re.test(parts.slice(0, i + 1).join('/')) || re.test(parts[i]!));
        }
        return path === pattern || path.startsWith(`${pattern}/`);
      });
    const copies = steps.filter((s) => s.op === 'COPY' && !s.args.startsWith('--from'));
    expect(copies.length).toBeGreaterThan(3);
    for (const copy of copies) {
      const sources = copy.args.split(/\s+/).slice(0, -1);
      for (const source of sources) {
        expect(existsSync(join(ROOT, source)), source).toBe(true);
        expect(isIgnored(source), `${source} is excluded by .dockerignore`).toBe(false);
      }
    }
    // The heavy or private things stay out.
    for (const path of ['node_modules', '.git', 'dist', 'data', 'bench/node_modules']) expect(isIgnored(path), path).toBe(true);
  });
});

/** The `.Values.a.b` paths of a Helm template that values.yaml does not have. */
function missingValues(template: string, values: Obj): string[] {
  const missing: string[] = [];
  for (const match of template.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
    let node: YamlValue | undefined = values;
    for (const key of match[1]!.slice(1).split('.')) node = isObj(node) && key in node ? node[key] : undefined;
    if (node === undefined) missing.push(match[0]);
  }
  return missing;
}

/** The template actions `{{ ... }}` of a Helm template. */
const actions = (text: string) => [...text.matchAll(/\{\{-?\s*([\s\S]*?)\s*-?\}\}/g)].map((m) => m[1]!);

describe(`${HELM}`, async () => {
  const chart = obj(await parseYaml(read(`${HELM}/Chart.yaml`)), 'Chart.yaml');
  const values = obj(await parseYaml(read(`${HELM}/values.yaml`)), 'values.yaml');
  const templates = filesUnder(`${HELM}/templates`);
  const text = (name: string) => read(`${HELM}/templates/${name}`);
  const all = templates.map((t) => read(t)).join('\n');

  it('Chart.yaml and values.yaml parse', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'shutter', type: 'application' });
    expect(typeof chart.version).toBe('string');
    expect(Object.keys(values)).toEqual(
      expect.arrayContaining(['image', 'secrets', 'config', 'api', 'worker', 'probes', 'serviceMonitor']),
    );
  });

  it('templates reference only values that exist in values.yaml', () => {
    const missing = templates.flatMap((t) => missingValues(read(t), values).map((path) => `${relative(HELM, t)}: ${path}`));
    expect(missing).toEqual([]);
    expect(templates.reduce((n, t) => n + (read(t).match(/\.Values\./g)?.length ?? 0), 0)).toBeGreaterThan(40);
  });

  it('the value check catches a planted misspelling', () => {
    const template = text('hpa.yaml');
    expect(missingValues(template, values)).toEqual([]);
    const planted = template.replace('.Values.api.autoscaling.minReplicas', '.Values.api.autoscalling.minReplicas');
    expect(missingValues(planted, values)).toEqual(['.Values.api.autoscalling.minReplicas']);
  });

  it('blocks are closed, included names are defined and included files exist', () => {
    for (const template of templates) {
      const acts = actions(read(template));
      const opened = acts.filter((a) => /^(if|range|with|define|block)\b/.test(a)).length;
      const closed = acts.filter((a) => /^end$/.test(a)).length;
      expect(closed, template).toBe(opened);
    }
    const defined = new Set([...all.matchAll(/define\s+"([^"]+)"/g)].map((m) => m[1]));
    for (const [, name] of all.matchAll(/include\s+"([^"]+)"/g)) expect(defined, name).toContain(name);
    for (const [, file] of all.matchAll(/\$\.Template\.BasePath\s+"\/([^"]+)"/g)) expect(templates).toContain(`${HELM}/templates/${file}`);
  });

  it('the HPAs scale on metrics /metrics exports, as gauges', async () => {
    const exported = await new Metrics().text();
    const named = [...text('hpa.yaml').matchAll(/metric:\s+name: (\w+)/g)].map((m) => m[1]!);
    expect(named).toEqual(['shutter_jobs_queued']);
    for (const name of named) expect(exported, name).toContain(`# TYPE ${name} gauge`);
  });

  it('has api and worker Deployments, Services, HPAs (CPU; job backlog), a ServiceMonitor, a Secret and a ConfigMap', () => {
    const kinds = [...all.matchAll(/^kind:\s*(\S+)/gm)].map((m) => m[1]).sort();
    expect(kinds).toEqual(
      [
        'ConfigMap',
        'Deployment',
        'Deployment',
        'HorizontalPodAutoscaler',
        'HorizontalPodAutoscaler',
        'Secret',
        'Service',
        'Service',
        'ServiceMonitor',
      ].sort(),
    );
    expect(text('deployment-api.yaml')).toContain('command: ["node", "dist/bundle/main.js", "serve"]');
    expect(text('deployment-worker.yaml')).toContain('command: ["node", "dist/bundle/main.js", "serve", "--role", "worker"]');
    const hpa = text('hpa.yaml');
    expect(hpa).toMatch(/type: Resource\s+resource:\s+name: cpu\s+target:\s+type: Utilization/);
    // Workers scale on the job backlog (the same value on every pod, so External, never Pods), not on
    // shutter_queue_depth, which is one process's captures waiting for its browser pool.
    expect(hpa).toMatch(/type: External\s+external:\s+metric:\s+name: shutter_jobs_queued\s/);
    expect(hpa).not.toMatch(/type: Pods/);
    expect(hpa).not.toMatch(/name: shutter_queue_depth/);
    expect(text('servicemonitor.yaml')).toMatch(/path: \/metrics/);
    for (const key of ['SHUTTER_SIGNING_SECRET', 'SHUTTER_DATABASE_URL', 'SHUTTER_REDIS_URL']) {
      expect(text('secret.yaml')).toMatch(new RegExp(`^  ${key}: \\{\\{ required `, 'm'));
    }
    // Both Deployments read the ConfigMap and the Secret.
    expect(text('_helpers.tpl')).toMatch(/configMapRef:\s+name: \{\{ include "shutter.fullname" \. \}\}-config/);
    expect(text('_helpers.tpl')).toMatch(/secretRef:\s+name: \{\{ include "shutter.secretName" \. \}\}/);
    for (const deployment of ['deployment-api.yaml', 'deployment-worker.yaml']) {
      expect(text(deployment)).toContain('include "shutter.containerCommon"');
    }
  });

  it('probes: liveness on /healthz, readiness on /readyz', () => {
    const helpers = text('_helpers.tpl');
    expect(helpers).toMatch(/livenessProbe:\s+httpGet:\s+path: \{\{ \.Values\.probes\.liveness\.path \}\}/);
    expect(helpers).toMatch(/readinessProbe:\s+httpGet:\s+path: \{\{ \.Values\.probes\.readiness\.path \}\}/);
    const probes = obj(values.probes, 'probes');
    expect(obj(probes.liveness, 'liveness').path).toBe('/healthz');
    expect(obj(probes.readiness, 'readiness').path).toBe('/readyz');
    expect(obj(probes.startup, 'startup').path).toBe('/healthz');
  });

  it('the ConfigMap settings and sample secrets pass the config schema', () => {
    const config = obj(values.config, 'config');
    for (const key of Object.keys(config)) expect(Object.keys(configSchema.shape), key).toContain(key);
    const parsed = loadConfig({
      ...Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)])),
      SHUTTER_SIGNING_SECRET: 'x'.repeat(40),
      SHUTTER_DATABASE_URL: 'postgres://shutter@db:5432/shutter',
      SHUTTER_REDIS_URL: 'redis://redis:6379',
    });
    expect(parsed.SHUTTER_TRUST_PROXY).toBe(true);
    // The Secret holds what must not be in a ConfigMap.
    for (const secret of [
      'SHUTTER_SIGNING_SECRET',
      'SHUTTER_DATABASE_URL',
      'SHUTTER_REDIS_URL',
      'SHUTTER_BOOTSTRAP_KEY',
      'SHUTTER_METRICS_TOKEN',
    ]) {
      expect(Object.keys(config)).not.toContain(secret);
    }
  });
});

/** Metric names prom-client's collectDefaultMetrics() registers (the "default process metrics"). */
const DEFAULT_PROCESS_METRICS = [
  'process_cpu_user_seconds_total',
  'process_cpu_system_seconds_total',
  'process_cpu_seconds_total',
  'process_start_time_seconds',
  'process_resident_memory_bytes',
  'process_virtual_memory_bytes',
  'process_heap_bytes',
  'process_open_fds',
  'process_max_fds',
  'nodejs_eventloop_lag_seconds',
  'nodejs_heap_size_total_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_external_memory_bytes',
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_gc_duration_seconds',
];
/** What GET /metrics exports (issue 20); histograms also expose _bucket, _sum and _count series. */
const SHUTTER_METRICS = [
  'shutter_captures_total',
  'shutter_capture_duration_seconds',
  'shutter_queue_depth',
  'shutter_pool_in_use',
  'shutter_browser_restarts_total',
  'shutter_egress_blocked_total',
  'shutter_limit_refusals_total',
  'shutter_cache_total',
];
const HISTOGRAMS = ['shutter_capture_duration_seconds', 'nodejs_gc_duration_seconds'];
const PROMQL_WORDS = new Set(
  [
    'sum avg min max count stddev stdvar topk bottomk quantile count_values group',
    'rate irate increase delta idelta deriv histogram_quantile clamp_min clamp_max abs ceil floor round',
    'absent time vector scalar label_values label_replace sort sort_desc avg_over_time max_over_time min_over_time',
    'by without on ignoring group_left group_right and or unless offset bool inf nan',
  ]
    .join(' ')
    .split(' '),
);

/** The metric names a PromQL expression (or a Grafana label_values() query) reads. */
function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    // label_values(metric, label): the label is not a metric.
    .replace(/(label_values\([^,()]*),\s*\w+\s*\)/g, '$1)');
  const names = [...stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)].map((m) => m[0]).filter((w) => !PROMQL_WORDS.has(w));
  return names.map((name) => {
    const base = name.replace(/_(bucket|sum|count)$/, '');
    return HISTOGRAMS.includes(base) ? base : name;
  });
}

describe('deploy/grafana/shutter-dashboard.json', () => {
  const dashboard = JSON.parse(read('deploy/grafana/shutter-dashboard.json')) as {
    panels: Array<{ title: string; type: string; targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ query?: string | { query: string } }> };
  };
  const queries = [
    ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
    ...dashboard.templating.list.map((v) => (typeof v.query === 'object' ? v.query.query : undefined)).filter((q): q is string => !!q),
  ];
  const allowed = new Set([...SHUTTER_METRICS, ...DEFAULT_PROCESS_METRICS]);

  it('the metric checker finds names through functions, matchers and ranges, and catches a misspelt one', () => {
    expect(
      metricNamesIn('histogram_quantile(0.95, sum by (le, phase) (rate(shutter_capture_duration_seconds_bucket{job=~"$job"}[5m])))'),
    ).toEqual(['shutter_capture_duration_seconds']);
    expect(metricNamesIn('label_values(process_resident_memory_bytes{job=~"$job"}, instance)')).toEqual(['process_resident_memory_bytes']);
    const planted = metricNamesIn(
      'sum(rate(shutter_capture_total{outcome="ok"}[$__rate_interval])) / sum(rate(shutter_captures_total[5m]))',
    );
    expect(planted.filter((n) => !allowed.has(n))).toEqual(['shutter_capture_total']);
  });

  it('parses, and every query reads only the metrics /metrics exports', () => {
    expect(queries.length).toBeGreaterThan(15);
    const unknown = queries.flatMap((q) =>
      metricNamesIn(q)
        .filter((n) => !allowed.has(n))
        .map((n) => `${n} in ${q}`),
    );
    expect(unknown).toEqual([]);
    // Every query reads some metric, and every Shutter metric has a panel.
    for (const q of queries) expect(metricNamesIn(q).length, q).toBeGreaterThan(0);
    const used = new Set(queries.flatMap(metricNamesIn));
    for (const name of [...SHUTTER_METRICS, 'process_cpu_seconds_total', 'process_resident_memory_bytes'])
      expect(used, name).toContain(name);
  });

  it('panels have unique ids and titles', () => {
    const titles = dashboard.panels.filter((p) => p.type !== 'row').map((p) => p.title);
    expect(new Set(titles).size).toBe(titles.length);
    const ids = dashboard.panels.map((p) => (p as unknown as { id: number }).id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('docs/deploy.md', () => {
  it('covers one box, Docker, compose, Helm, nginx, and says what was not run', () => {
    const doc = read('docs/deploy.md');
    for (const heading of [
      /^## One box/m,
      /^## Docker/m,
      /^## Docker Compose/m,
      /^## Kubernetes \(Helm\)/m,
      /^## nginx in front/m,
      /^## What was not run here/m,
    ]) {
      expect(doc).toMatch(heading);
    }
    expect(doc).toContain('SHUTTER_TRUST_PROXY');
    expect(doc).toContain('make start');
  });

  it('the YAML blocks in it parse', async () => {
    const blocks = [...read('docs/deploy.md').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    for (const block of blocks) await expect(parseYamlDocuments(block)).resolves.toBeDefined();
  });
});
