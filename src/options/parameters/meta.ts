import type { z } from 'zod';

/** The playground's sections and the docs' groups, in the order they are shown. */
export const PARAMETER_GROUPS = ['source', 'output', 'viewport', 'page', 'blocking', 'waits', 'request', 'pdf'] as const;
export type ParameterGroup = (typeof PARAMETER_GROUPS)[number];

/** How the docs describe a parameter; read back by the docs, OpenAPI and the playground. */
export interface ParameterMeta {
  /** The section it is shown in (playground, docs). */
  group: ParameterGroup;
  description: string;
  /** Type and allowed values, as the reference shows them. */
  allowed: string;
  /** Default as the reference shows it. */
  default?: string;
  /** Formats the parameter applies to; absent = all. */
  formats?: readonly string[];
  example?: string;
  /** The values to choose from, for a parameter that is one of a list (the playground offers them). */
  choices?: readonly string[];
  /**
   * Defaults that replace the schema's own in some cases (it depends on other parameters), each
   * with the case as the docs state it: timeout's short one for pdf, markdown and html input.
   * OpenAPI shows them as x-default-when beside the schema's `default`.
   */
  defaultWhen?: ReadonlyArray<{ when: string; default: unknown }>;
  [key: string]: unknown;
}

/** A parameter's schema with its docs attached. */
export const meta = <T extends z.ZodType>(group: ParameterGroup, schema: T, m: Omit<ParameterMeta, 'group'>): T =>
  schema.meta({ group, ...m });
