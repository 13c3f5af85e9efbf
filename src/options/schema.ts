import { z } from 'zod';
import type { Format } from '../formats/registry.js';
import { animateParameters } from './parameters/animate.js';
import { blockingParameters } from './parameters/blocking.js';
import { cacheParameters } from './parameters/cache.js';
import { checksParameters } from './parameters/checks.js';
import { diagnosticsParameters } from './parameters/diagnostics.js';
import { elementParameters } from './parameters/element.js';
import { emulationParameters } from './parameters/emulation.js';
import type { ParameterMeta } from './parameters/meta.js';
import { interactionParameters } from './parameters/interaction.js';
import { jobParameters } from './parameters/jobs.js';
import { outputParameters } from './parameters/output.js';
import { pageParameters } from './parameters/page.js';
import { pdfParameters } from './parameters/pdf.js';
import { requestParameters } from './parameters/request.js';
import { responseParameters } from './parameters/response.js';
import { requestShapingParameters } from './parameters/request-shaping.js';
import { sourceParameters } from './parameters/source.js';
import { viewportParameters } from './parameters/viewport.js';
import { waitsParameters } from './parameters/waits.js';

export type { ParameterMeta } from './parameters/meta.js';

/**
 * Every parameter of GET/POST /v1/take: validation, defaults and docs in one place, one file per
 * kind of option in parameters/ (a new option is an entry there). Rules that tie several
 * parameters together live in rules/ and parse-take-options.ts.
 */
export const takeParameters = {
  ...sourceParameters,
  ...outputParameters,
  ...responseParameters,
  ...cacheParameters,
  ...jobParameters,
  ...viewportParameters,
  ...emulationParameters,
  ...elementParameters,
  ...pageParameters,
  ...interactionParameters,
  ...blockingParameters,
  ...waitsParameters,
  ...checksParameters,
  ...diagnosticsParameters,
  ...requestParameters,
  ...requestShapingParameters,
  ...pdfParameters,
};

export type ParameterName = keyof typeof takeParameters;
export const PARAMETER_NAMES = Object.keys(takeParameters) as ParameterName[];

export const takeSchema = z.object(takeParameters);

/** The parameters of GET/POST /v1/animate that take has not (parameters/animate.ts). */
export const animateSchema = z.object(animateParameters);

/** An animation's own options, parsed (parse-animate-options.ts). */
export type AnimationOptions = z.output<typeof animateSchema>;

/** Options after validation, with every default applied (timeout's as parse-take-options picks it for the format and input). */
export type TakeOptions = Omit<z.output<typeof takeSchema>, 'viewport_mobile' | 'viewport_has_touch' | 'format'> & {
  /** Resolved from the device when not given (resolveScreen). */
  viewport_mobile: boolean;
  viewport_has_touch: boolean;
  /** /v1/take's formats, or with `animation` the video's. */
  format: Format;
  /** Set by /v1/animate only: the capture records the page over time instead of rendering it once. */
  animation?: AnimationOptions;
};

const metas = new Map<ParameterName, ParameterMeta>();

/** Reads a parameter's docs metadata back from the schema (once: every request asks for it, and zod's registry look-up is not free). */
export function parameterMeta(name: ParameterName): ParameterMeta {
  let meta = metas.get(name);
  if (!meta) {
    meta = takeParameters[name].meta() as ParameterMeta;
    metas.set(name, meta);
  }
  return meta;
}
