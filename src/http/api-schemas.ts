import { ERROR_STATUS } from '../errors/error-codes.js';
import { OUTPUT_FORMATS } from '../formats/registry.js';
import { JOB_JSON_SCHEMA } from '../jobs/job-json.js';
import { animateOptionsJsonSchema, takeOptionsJsonSchema } from '../options/openapi.js';

/** The OpenAPI pieces several routes share: component schemas, the error answers, the file answer. */

/** POST /v1/bulk takes at most this many captures (DESIGN.md §4.3). */
export const MAX_BULK_REQUESTS = 50;

/** A reference to one of COMPONENT_SCHEMAS. */
export const ref = (name: keyof ReturnType<typeof componentSchemas>) => ({ $ref: `#/components/schemas/${name}` });

/** components.schemas of the document: the take and animate options from their zod schemas, the job from its JSON's module. */
export function componentSchemas() {
  const take = takeOptionsJsonSchema();
  return {
    TakeOptions: take,
    AnimateOptions: animateOptionsJsonSchema(take),
    Job: JOB_JSON_SCHEMA,
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
        requests: { type: 'array', minItems: 1, maxItems: MAX_BULK_REQUESTS, items: { $ref: '#/components/schemas/TakeOptions' } },
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
  };
}

/** One answer per error status, naming the error codes that use it (from the one error table). */
export const ERROR_RESPONSES = Object.fromEntries(
  [...new Set(Object.values(ERROR_STATUS))].map((status) => [
    String(status),
    {
      description: Object.entries(ERROR_STATUS)
        .filter(([, s]) => s === status)
        .map(([code]) => code)
        .join(', '),
      content: { 'application/json': { schema: ref('Error') } },
    },
  ]),
);

/** A capture's file, in any output format's content type. */
export const FILE_RESPONSE = {
  description: 'The captured file.',
  content: Object.fromEntries(
    OUTPUT_FORMATS.filter((f) => f.kind !== 'video').map(({ contentType: type }) => [
      type.split(';')[0]!,
      { schema: { type: 'string', format: 'binary' } },
    ]),
  ),
};

/** The Idempotency-Key request header of async=1 and bulk. */
export const IDEMPOTENCY_KEY_HEADER = {
  type: 'object',
  properties: {
    'Idempotency-Key': {
      type: 'string',
      maxLength: 255,
      description: 'With async=1 and on bulk: the same key and body within 24 h answer the same job(s); another body is 409.',
    },
  },
};

/** A JSON answer the document does not detail (status, devices, debug bundles). */
export const jsonObject = (description: string) => ({ description, type: 'object' });
