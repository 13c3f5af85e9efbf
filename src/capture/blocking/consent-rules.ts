import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame } from 'playwright-core';

/** A selector, or a chain of them into shadow roots and frames (autoconsent's ElementSelector). */
type ElementSelector = string | string[];

interface DetectStep {
  exists?: ElementSelector;
  visible?: ElementSelector;
  any?: DetectStep[];
}

export interface ConsentRule {
  name: string;
  detectCmp?: DetectStep[];
  [key: string]: unknown;
}

interface IndexedRule {
  rule: ConsentRule;
  /** The rule can only match if one of these selectors matches; null = cannot tell, always a candidate. */
  probes: string[] | null;
}

const require = createRequire(import.meta.url);

/** The outermost element a selector needs: for a chain into shadow roots or frames, its first link. */
const hostOf = (selector: ElementSelector) => (Array.isArray(selector) ? selector[0] : selector);

/**
 * Selectors one of which must be present for the rule's detection to pass. detectCmp steps all
 * have to pass, so the first step alone is a necessary condition; `any` needs one of its probes.
 */
function probesOf(steps: DetectStep[] | undefined): string[] | null {
  const first = steps?.[0];
  if (!first) return null;
  const selector = first.exists ?? first.visible;
  if (selector !== undefined) return hostOf(selector) ? [hostOf(selector)!] : null;
  if (first.any) {
    const inner = first.any.map((step) => probesOf([step]));
    return inner.some((p) => p === null) ? null : (inner.flat() as string[]);
  }
  return null;
}

let index: { rules: IndexedRule[]; probes: string[] } | undefined;

/** autoconsent's ~800 declarative rules, each with the selectors its detection needs; built once. */
function ruleIndex() {
  if (index) return index;
  const { autoconsent } = JSON.parse(readFileSync(require.resolve('@duckduckgo/autoconsent/rules/rules.json'), 'utf8')) as {
    autoconsent: ConsentRule[];
  };
  const rules = autoconsent.map((rule) => ({ rule, probes: probesOf(rule.detectCmp) }));
  const probes = [...new Set(rules.flatMap((r) => r.probes ?? []))];
  index = { rules, probes };
  return index;
}

/**
 * The declarative rules that could match in this frame: one querySelector per distinct probe
 * in the page (a few ms), instead of shipping and compiling every rule (hundreds of ms).
 */
export async function candidateRules(frame: Frame): Promise<ConsentRule[]> {
  const { rules, probes } = ruleIndex();
  const present = await frame.evaluate((list) => {
    const found: string[] = [];
    for (const selector of list) {
      try {
        if (document.querySelector(selector)) found.push(selector);
      } catch {
        // A selector this browser cannot parse matches nothing.
      }
    }
    return found;
  }, probes);
  const hit = new Set(present);
  return rules.filter((r) => r.probes === null || r.probes.some((p) => hit.has(p))).map((r) => r.rule);
}
