import { z } from 'zod';
import { ERROR_STATUS } from '../errors/error-codes.js';
import { OUTPUT_FORMATS } from '../formats/registry.js';
import { PARAMETER_NAMES, parameterMeta, takeParameters, takeSchema, type ParameterName } from './schema.js';

/** Our docs metadata is not JSON Schema; OpenAPI wants extensions prefixed with x-. */
const EXTENSION_KEYS = ['allowed', 'formats', 'example', 'default', 'group', 'choices'] as const;

/** The OpenAPI 3.1 document of the API, derived from the options schema. */
export function buildOpenApi(version: string): Record<string, unknown> {
  const body = z.toJSONSchema(takeSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, Record<string, unknown>>;
  };
  delete (body as Record<string, unknown>).$schema;
  for (const [name, property] of Object.entries(body.properties)) {
    for (const key of EXTENSION_KEYS) {
      if (key in property) {
        property[`x-${key}`] = property[key];
        delete property[key];
      }
    }
    delete property.defaultWhen;
    const meta = parameterMeta(name as ParameterName);
    const value = jsonDefault(name as ParameterName);
    if (value !== undefined) property.default = value;
    // Where another parameter changes it, e.g. timeout's short default for pdf, markdown and html input.
    if (meta.defaultWhen) property['x-default-when'] = meta.defaultWhen;
    // How the reference states it, e.g. timeout's "60, or 12 where the cap is 12".
    if (meta.default !== undefined) property['x-default'] = meta.default;
    if (name === 'hide_selectors') property['x-aliases'] = ['hide_selectors[]'];
  }
  const queryParameters = PARAMETER_NAMES.map((name) => ({
    name: name === 'hide_selectors' ? 'hide_selectors[]' : name,
    in: 'query',
    description: `${parameterMeta(name).description} Allowed: ${parameterMeta(name).allowed}.`,
    schema: body.properties[name],
    ...(name === 'hide_selectors' ? { style: 'form', explode: true } : {}),
  }));
  const errorResponses = Object.fromEntries(
    [...new Set(Object.values(ERROR_STATUS))].map((status) => [
      String(status),
      {
        description: Object.entries(ERROR_STATUS)
          .filter(([, s]) => s === status)
          .map(([code]) => code)
          .join(', '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
  const fileResponse = {
    description: 'The captured file.',
    content: Object.fromEntries(
      OUTPUT_FORMATS.map(({ contentType: type }) => [type.split(';')[0]!, { schema: { type: 'string', format: 'binary' } }]),
    ),
  };
  const idempotencyKey = {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'With async=1 and on bulk: the same key and body within 24 h answer the same job(s); another body is 409.',
    schema: { type: 'string', maxLength: 255 },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'Shutter screenshot API', version },
    components: {
      securitySchemes: {
        apikeyHeader: { type: 'apiKey', in: 'header', name: 'apikey' },
        apikeyQuery: { type: 'apiKey', in: 'query', name: 'apikey' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        TakeOptions: body,
        Job: {
          type: 'object',
          properties: {
            job_id: { type: 'string' },
            status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
            created_at: { type: 'string', format: 'date-time' },
            started_at: { type: ['string', 'null'], format: 'date-time' },
            finished_at: { type: ['string', 'null'], format: 'date-time' },
            external_id: { type: ['string', 'null'] },
            request_id: { type: 'string' },
            result: {
              type: ['object', 'null'],
              properties: {
                url: { type: 'string' },
                expires_at: { type: ['string', 'null'] },
                format: { type: 'string' },
                content_type: { type: 'string' },
                size: { type: 'integer' },
              },
            },
            error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
            webhook: {
              type: 'object',
              properties: {
                url: { type: 'string' },
                attempts: { type: 'integer' },
                last_status: { type: ['integer', 'null'] },
                last_error: { type: ['string', 'null'] },
                delivered_at: { type: ['string', 'null'] },
                next_attempt_at: { type: ['string', 'null'] },
              },
            },
          },
        },
        JobCreated: {
          type: 'object',
          properties: {
            job_id: { type: 'string' },
            status: { type: 'string', enum: ['queued'] },
            status_url: { type: 'string' },
            external_id: { type: ['string', 'null'] },
            request_id: { type: 'string' },
          },
        },
        BulkRequest: {
          type: 'object',
          required: ['requests'],
          properties: {
            defaults: { $ref: '#/components/schemas/TakeOptions' },
            requests: { type: 'array', minItems: 1, maxItems: 50, items: { $ref: '#/components/schemas/TakeOptions' } },
            webhook_url: { type: 'string' },
          },
        },
        Error: {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
                message: { type: 'string' },
                details: { type: 'array', items: { type: 'object' } },
              },
              required: ['code', 'message'],
            },
            request_id: { type: 'string' },
          },
        },
      },
    },
    security: [{ apikeyHeader: [] }, { apikeyQuery: [] }, { bearer: [] }],
    paths: {
      '/v1/take': {
        get: { summary: 'Capture a page', parameters: queryParameters, responses: { 200: fileResponse, ...errorResponses } },
        post: {
          summary: 'Capture a page or HTML (async=1: queue it as a job, 202)',
          parameters: [idempotencyKey],
          requestBody: {
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/TakeOptions' } },
              'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/TakeOptions' } },
            },
          },
          responses: {
            200: fileResponse,
            202: {
              description: 'async=1: the job, queued',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/JobCreated' } } },
            },
            ...errorResponses,
          },
        },
      },
      '/v1/status': { get: { summary: 'The calling key and the service', responses: { 200: { description: 'Status' } } } },
      '/v1/jobs/{id}': {
        get: {
          summary: 'An async job of the calling account (async=1 or POST /v1/bulk)',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: { description: 'The job', content: { 'application/json': { schema: { $ref: '#/components/schemas/Job' } } } },
            ...errorResponses,
          },
        },
      },
      '/v1/bulk': {
        post: {
          summary: 'Queue up to 50 captures as jobs',
          parameters: [idempotencyKey],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/BulkRequest' } } } },
          responses: {
            202: {
              description: 'A job per request, in order',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      jobs: { type: 'array', items: { $ref: '#/components/schemas/JobCreated' } },
                      request_id: { type: 'string' },
                    },
                  },
                },
              },
            },
            ...errorResponses,
          },
        },
      },
      '/v1/devices': { get: { summary: 'Device names for viewport_device', responses: { 200: { description: 'Devices' } } } },
      '/v1/requests/{request_id}': {
        get: {
          summary: 'The debug bundle of a capture made with debug=1 (24 h)',
          parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The bundle' }, ...errorResponses },
        },
      },
    },
  };
}

/**
 * The JSON Schema default of a parameter: the schema's own default as a caller would send it
 * (timeout's is the url capture's; x-default-when gives the others).
 */
function jsonDefault(name: ParameterName): unknown {
  const meta = parameterMeta(name);
  const parsed = takeParameters[name].safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  const primitive = (v: unknown) => v === null || typeof v !== 'object';
  if (primitive(parsed.data) || (Array.isArray(parsed.data) && parsed.data.every(primitive))) return parsed.data;
  return meta.default; // parsed into a structure (pdf_margin): the text form
}
