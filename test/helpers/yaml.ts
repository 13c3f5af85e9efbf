import * as prettier from 'prettier';

/**
 * YAML to plain values for the deployment-file tests, with no YAML package in the dependencies: the
 * syntax is checked by the YAML 1.2 parser prettier bundles (a devDependency already), and its tree
 * is turned into values here. Covers what compose files and Helm values use: block and flow
 * collections, every scalar style (plain scalars by the YAML 1.2 core schema), anchors, aliases and
 * `<<` merge keys, several documents. A duplicate key is an error, as in compose and Kubernetes.
 */
export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

interface Node {
  type: string;
  value?: unknown;
  anchor?: { value: string } | null;
  children?: Array<Node | null>;
  position?: { start: { line: number; column: number } };
}

/** Parses every document of `text`; throws with the line of the first error. */
export async function parseYamlDocuments(text: string): Promise<YamlValue[]> {
  // prettier.__debug is prettier's own entry point to its parsers (used by its tests and playground);
  // its type declarations leave it out.
  const { __debug } = prettier as unknown as { __debug: { parse(text: string, options: { parser: string }): Promise<{ ast: Node }> } };
  const { ast } = await __debug.parse(text, { parser: 'yaml' });
  const anchors = new Map<string, YamlValue>();
  return (ast.children ?? []).map((document) => {
    const body = document?.children?.find((c) => c?.type === 'documentBody');
    const content = body?.children?.[0];
    return content ? toValue(content, anchors) : null;
  });
}

/** Parses a file that holds one YAML document. */
export async function parseYaml(text: string): Promise<YamlValue> {
  const documents = await parseYamlDocuments(text);
  if (documents.length !== 1) throw new Error(`expected one YAML document, found ${documents.length}`);
  return documents[0]!;
}

function toValue(node: Node, anchors: Map<string, YamlValue>): YamlValue {
  let value: YamlValue;
  switch (node.type) {
    case 'alias': {
      const name = String(node.value);
      if (!anchors.has(name)) throw new Error(`${where(node)}: alias *${name} names no anchor`);
      return anchors.get(name)!;
    }
    case 'plain':
      value = plainScalar(String(node.value));
      break;
    case 'quoteDouble':
    case 'quoteSingle':
    case 'blockLiteral':
    case 'blockFolded':
      value = String(node.value);
      break;
    case 'mapping':
    case 'flowMapping':
      value = mapping(node, anchors);
      break;
    case 'sequence':
    case 'flowSequence':
      value = (node.children ?? []).map((item) => {
        const content = item?.children?.[0];
        return content ? toValue(content, anchors) : null;
      });
      break;
    default:
      throw new Error(`${where(node)}: unsupported YAML node ${node.type}`);
  }
  if (node.anchor) anchors.set(node.anchor.value, value);
  return value;
}

function mapping(node: Node, anchors: Map<string, YamlValue>): { [key: string]: YamlValue } {
  const result: { [key: string]: YamlValue } = {};
  const merged: { [key: string]: YamlValue } = {};
  for (const item of node.children ?? []) {
    const [keyNode, valueNode] = item?.children ?? [];
    const keyContent = keyNode?.children?.[0];
    const valueContent = valueNode?.children?.[0];
    const key = keyContent ? String(toValue(keyContent, anchors)) : '';
    const value = valueContent ? toValue(valueContent, anchors) : null;
    if (key === '<<' && keyContent?.type === 'plain') {
      // Merge keys: the merged mappings fill in what the mapping does not set itself.
      for (const source of Array.isArray(value) ? value : [value]) {
        if (source === null || typeof source !== 'object' || Array.isArray(source)) {
          throw new Error(`${where(item!)}: << merges mappings only`);
        }
        for (const [k, v] of Object.entries(source)) if (!(k in merged)) merged[k] = v;
      }
      continue;
    }
    if (Object.prototype.hasOwnProperty.call(result, key)) throw new Error(`${where(item!)}: duplicate key ${key}`);
    result[key] = value;
  }
  return { ...merged, ...result };
}

/** YAML 1.2 core schema resolution of a plain scalar. */
function plainScalar(text: string): YamlValue {
  if (/^(~|null|Null|NULL|)$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number.parseInt(text, 10);
  if (/^0o[0-7]+$/.test(text)) return Number.parseInt(text.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number.parseFloat(text);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(nan|NaN|NAN)$/.test(text)) return Number.NaN;
  return text;
}

function where(node: Node): string {
  const start = node.position?.start;
  return start ? `line ${start.line}:${start.column}` : 'YAML';
}
