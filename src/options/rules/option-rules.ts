import { elementRules } from './element-rules.js';
import { emulationRules } from './emulation-rules.js';
import { interactionRules } from './interaction-rules.js';
import { jobRules } from './jobs-rules.js';
import type { OptionRule } from './option-rule.js';
import { responseRules } from './response-rules.js';

/**
 * The rules across parameters, one file per kind of option beside its parameters/ file (the general
 * ones are in parse-take-options.ts). They live apart from the parameters because they read the
 * schema's types, which the parameters make up: together they would import each other.
 */
export const OPTION_RULES: readonly OptionRule[] = [...elementRules, ...emulationRules, ...interactionRules, ...responseRules, ...jobRules];
