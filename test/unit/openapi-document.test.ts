import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../src/errors/app-error.js';
import { openApiDocument } from '../../src/http/route-table.js';
import { animateParameters } from '../../src/options/parameters/animate.js';
import { ANIMATE_TAKE_PARAMETERS, parseAnimateOptions } from '../../src/options/parse-animate-options.js';

/**
 * Issue 32: the OpenAPI document is generated from the routes' declarations (@fastify/swagger) and
 * no longer hand-written. test/fixtures/openapi/before.json is the hand-written document as it was
 * (buildOpenApi of src/options/openapi.ts at d9f9ccf); the generated one must say the same, field
 * by field: paths, methods, parameters, request bodies, responses and components. Every difference
 * is one of ALLOWED, with its reason.
 */
const before = JSON.parse(readFileSync('test/fixtures/openapi/before.json', 'utf8')) as unknown;

interface Difference {
  kind: 'added' | 'removed' | 'changed';
  path: string;
  value: unknown;
}

const ALLOWED: Array<{ kind: Difference['kind']; path: RegExp; value?: unknown; reason: string }> = [
  {
    kind: 'added',
    path: /^\/paths\/\/v1\/take\/get\/parameters\/\d+\/required$/,
    value: false,
    reason: '@fastify/swagger states required: false on every optional query parameter; absent meant the same',
  },
  {
    kind: 'removed',
    path: /^\/paths\/\/v1\/take\/get\/parameters\/\d+\/schema\/description$/,
    reason: 'the description is the parameter’s own (unchanged, with what it allows), not repeated inside its schema',
  },
  {
    kind: 'removed',
    path: /^\/paths\/\/v1\/take\/get\/parameters\/43\/(style|explode)$/,
    reason: 'hide_selectors[]: style form, explode true are OpenAPI’s defaults for a query parameter, so stating them changed nothing',
  },
  {
    kind: 'added',
    path: /^\/paths\/\/v1\/bulk\/post\/requestBody\/required$/,
    value: true,
    reason:
      'a bulk request has a body (400 without one); POST /v1/take’s stays optional (x-body-optional), its parameters may all be in the query',
  },
  {
    kind: 'added',
    path: /^\/paths\/\/v1\/devices\/get\/security$/,
    value: [],
    reason: 'the route declares auth none: GET /v1/devices needs no key, as it never did',
  },
  {
    kind: 'added',
    path: /^\/paths\/\/v1\/(status|devices|requests\/\{request_id\})\/get\/responses\/200\/content$/,
    reason:
      'these answers are JSON objects; @fastify/swagger gives every described response a content type (the body is still not detailed)',
  },
  {
    kind: 'changed',
    path: /^(\/components\/schemas\/TakeOptions\/properties\/pdf_margin|\/paths\/\/v1\/take\/get\/parameters\/73(\/schema)?)\/(description|default)$/,
    reason: 'wave 3 (issue 37): pdf_margin has no fixed default any more: not given, it is 0 with room made for pdf_header and pdf_footer',
  },
  {
    kind: 'removed',
    path: /^(\/paths\/\/v1\/take\/get\/parameters\/73\/schema|\/components\/schemas\/TakeOptions\/properties\/pdf_margin)\/default$/,
    reason: 'wave 3 (issue 37): the same pdf_margin default, in the options schema and the GET query parameter',
  },
  {
    kind: 'added',
    path: /^\/components\/schemas\/Job\/properties\/result\/properties\/extra$/,
    reason: 'wave 3 (issue 34): a job with extra_formats stores each output; its result lists them',
  },
  {
    kind: 'changed',
    path: /^(\/components\/schemas\/TakeOptions\/properties\/block_resources|\/paths\/\/v1\/take\/get\/parameters\/56)\/description$/,
    reason: 'wave 3 (issue 34): block_resources, a list of names like extra_formats, may also be one comma list',
  },
];

/**
 * What wave 3 added to the API after the document was generated instead of written (DESIGN.md §5):
 * new routes and new take parameters. The comparison takes them out of today's document first, so
 * what it checks is that everything that was there is still said the same way.
 */
const WAVE_3_PATHS = ['/mcp', '/v1/animate'];
const WAVE_3_SCHEMAS = ['AnimateOptions'];
const WAVE_3_ERRORS = new Set(['backend_unavailable', 'ffmpeg_unavailable']);
const WAVE_3_PARAMETERS = new Set(['main_content', 'extra_formats', 'pdf_header', 'pdf_footer', 'pdf_outline', 'pdf_tagged']);

type Doc = {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; responses?: Record<string, { description?: string }> }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
};
type ErrorSchema = { properties: { error: { properties: { code: { enum: string[] } } } } };

function withoutWave3(document: Record<string, unknown>): Doc {
  const doc = structuredClone(document) as Doc;
  for (const path of WAVE_3_PATHS) delete doc.paths[path];
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      if (op.parameters) op.parameters = op.parameters.filter((p) => !WAVE_3_PARAMETERS.has(p.name));
      // An error answer's description lists its codes: wave 3's new codes are left out, and an answer left with none goes.
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!/^\d+$/.test(status) || status.startsWith('2') || typeof response.description !== 'string') continue;
        const codes = response.description.split(', ').filter((code) => !WAVE_3_ERRORS.has(code));
        if (codes.length === 0) delete op.responses![status];
        else response.description = codes.join(', ');
      }
    }
  }
  for (const name of WAVE_3_SCHEMAS) delete doc.components.schemas[name];
  const options = doc.components.schemas.TakeOptions;
  for (const name of WAVE_3_PARAMETERS) delete options?.properties?.[name];
  const codes = (doc.components.schemas.Error as unknown as ErrorSchema).properties.error.properties.code;
  codes.enum = codes.enum.filter((code) => !WAVE_3_ERRORS.has(code));
  return doc;
}

function differences(was: unknown, is: unknown, path = ''): Difference[] {
  if (typeof was !== 'object' || was === null || typeof is !== 'object' || is === null || Array.isArray(was) !== Array.isArray(is)) {
    return JSON.stringify(was) === JSON.stringify(is) ? [] : [{ kind: 'changed', path, value: is }];
  }
  const a = was as Record<string, unknown>;
  const b = is as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((key): Difference[] => {
    const at = `${path}/${key}`;
    if (!(key in b)) return [{ kind: 'removed', path: at, value: a[key] }];
    if (!(key in a)) return [{ kind: 'added', path: at, value: b[key] }];
    return differences(a[key], b[key], at);
  });
}

const allowed = (d: Difference) =>
  ALLOWED.some(
    (rule) =>
      rule.kind === d.kind && rule.path.test(d.path) && (!('value' in rule) || JSON.stringify(rule.value) === JSON.stringify(d.value)),
  );

describe('the generated OpenAPI document', () => {
  it('says what the hand-written one said, every difference listed with its reason', async () => {
    const after = withoutWave3(await openApiDocument('0.1.0'));
    const unexplained = differences(before, after).filter((d) => !allowed(d));
    expect(unexplained).toEqual([]);
  });

  it('has the same paths, methods and parameter names, in the same order', async () => {
    const names = (doc: unknown) => {
      const paths = (doc as { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> }).paths;
      return Object.entries(paths).map(([path, item]) => [
        path,
        Object.entries(item).map(([method, op]) => [method, (op.parameters ?? []).map((p) => `${p.in}:${p.name}`)]),
      ]);
    };
    expect(names(withoutWave3(await openApiDocument('0.1.0')))).toEqual(names(before));
  });
});

describe('/v1/animate in the document (issue 36)', () => {
  type Parameter = { name: string; in: string; schema: Record<string, unknown> };
  type Animate = {
    paths: Record<
      string,
      { get: { parameters: Parameter[] }; post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
    >;
    components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
  };
  const refusedAsNotAnimate = (name: string, value: unknown) => {
    try {
      parseAnimateOptions({ url: 'https://example.com/', [name]: value }, { countries: [] });
      return undefined;
    } catch (error) {
      const details = (error as AppError).extra.details ?? [];
      return details.find((d) => d.parameter === name && (d.code === 'unknown_parameter' || d.code === 'parameter_not_applicable'))?.code;
    }
  };

  it('lists exactly the parameters the animate parser takes, from the same schema entries as /v1/take', async () => {
    const doc = (await openApiDocument('0.1.0')) as unknown as Animate;
    const query = doc.paths['/v1/animate']!.get.parameters;
    const names = query.map((p) => p.name);
    expect(query.every((p) => p.in === 'query')).toBe(true);
    expect(names).toEqual([
      ...ANIMATE_TAKE_PARAMETERS.map((n) => (n === 'hide_selectors' ? 'hide_selectors[]' : n)),
      ...Object.keys(animateParameters),
    ]);
    // The body is the AnimateOptions component, with the same names.
    const body = doc.paths['/v1/animate']!.post.requestBody.content['application/json']!.schema.$ref;
    expect(body).toBe('#/components/schemas/AnimateOptions');
    const animate = doc.components.schemas.AnimateOptions!.properties;
    const take = doc.components.schemas.TakeOptions!.properties;
    expect(Object.keys(animate)).toEqual([...ANIMATE_TAKE_PARAMETERS, ...Object.keys(animateParameters)]);
    // A page option is take's own entry, word for word; format is the video's.
    for (const name of ANIMATE_TAKE_PARAMETERS) expect(animate[name], name).toEqual(take[name]);
    expect(animate.format).toMatchObject({ 'x-choices': ['mp4', 'webm', 'gif'], default: 'mp4' });
    expect(animate.duration).toMatchObject({ default: 5 });
    expect(animate.scroll_easing).toMatchObject({ default: 'ease_in_out_quad' });
    // Every take parameter the document leaves out is one the parser refuses on /v1/animate, and none it lists is refused.
    for (const name of Object.keys(take).filter((n) => !(n in animate))) {
      expect(refusedAsNotAnimate(name, '1'), name).toBe('parameter_not_applicable');
    }
    for (const name of ANIMATE_TAKE_PARAMETERS) expect(refusedAsNotAnimate(name, '1'), name).toBeUndefined();
    expect(refusedAsNotAnimate('scroll_back', '1')).toBe('parameter_not_applicable'); // only with scenario=scroll
  });
});
