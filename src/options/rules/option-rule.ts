import type { ErrorDetail } from '../../errors/app-error.js';
import type { ErrorCode } from '../../errors/error-codes.js';
import type { ParameterName, takeSchema } from '../schema.js';
import type { z } from 'zod';

export type AddProblem = (code: ErrorCode, parameter: string, message: string, extra?: Partial<ErrorDetail>) => void;

/** What a rule across parameters sees: the values that parsed, which ones the caller gave, and where to report. */
export interface RuleInput {
  o: Partial<z.output<typeof takeSchema>>;
  given(name: ParameterName): boolean;
  add: AddProblem;
}

/** A rule that ties parameters together (conflicts, "all four together"); it reports with `add`. */
export type OptionRule = (input: RuleInput) => void;

/** 400 naming both when two parameters that cannot go together are given. */
export function conflict(a: ParameterName, b: ParameterName, why = ''): OptionRule {
  return ({ given, add }) => {
    if (given(a) && given(b)) add('invalid_parameter', a, `cannot be combined with ${b}${why ? `: ${why}` : ''}`, { conflicts_with: b });
  };
}
