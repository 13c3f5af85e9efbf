import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/route-table.js';
import { DEFAULT_TIMEOUT } from '../../src/options/limits.js';
import { fillGenerated } from '../../src/options/reference.js';
import { PARAMETER_NAMES } from '../../src/options/schema.js';

describe('generated docs', () => {
  for (const file of ['README.md', 'docs/api.md']) {
    it(`${file} holds the tables generated from the schemas (run \`make docs\`)`, () => {
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('<!-- generated:');
      expect(fillGenerated(text)).toBe(text);
    });
  }

  it('docs/api.md names every parameter of the options schema', () => {
    const text = readFileSync('docs/api.md', 'utf8');
    for (const name of PARAMETER_NAMES) expect(text).toContain(`| \`${name}\` |`);
  });

  it('the OpenAPI document lists every parameter and every error code', async () => {
    const doc = (await openApiDocument('test')) as {
      paths: Record<string, { get: { parameters: Array<{ name: string }> } }>;
      components: { schemas: { TakeOptions: { properties: Record<string, Record<string, unknown>> } } };
    };
    const names = doc.paths['/v1/take']!.get.parameters.map((p) => p.name);
    expect(names).toContain('hide_selectors[]');
    expect(names).toHaveLength(PARAMETER_NAMES.length);
    const quality = doc.components.schemas.TakeOptions.properties.quality!;
    expect(quality['x-formats']).toEqual(['jpg', 'webp', 'avif']);
    expect(quality.allowed).toBeUndefined();
  });

  it('OpenAPI shows every default, the timeout one included, as a caller would send it', async () => {
    const doc = (await openApiDocument('test')) as {
      components: { schemas: { TakeOptions: { properties: Record<string, Record<string, unknown>> } } };
    };
    const p = doc.components.schemas.TakeOptions.properties;
    expect(p.timeout).toMatchObject({ default: 60, 'x-default': '60, or 12 where the cap is 12' });
    expect(p.viewport_width!.default).toBe(1280);
    expect(p.format!.default).toBe('png');
    expect(p.full_page!.default).toBe(false);
    // pdf_margin's default depends on pdf_header and pdf_footer: only the reference's text form states it.
    expect(p.pdf_margin!['x-default']).toBe('0');
    expect(p.pdf_tagged!.default).toBe(true);
    expect(p.url!.default).toBeUndefined();
  });

  it('OpenAPI states where the timeout default differs, from the same numbers the parser uses', async () => {
    const doc = (await openApiDocument('test')) as {
      components: { schemas: { TakeOptions: { properties: Record<string, Record<string, unknown>> } } };
    };
    const timeout = doc.components.schemas.TakeOptions.properties.timeout!;
    expect(timeout.default).toBe(DEFAULT_TIMEOUT.url);
    expect(timeout['x-default-when']).toEqual([
      { when: 'format pdf, markdown or html, and any html input', default: DEFAULT_TIMEOUT.short },
    ]);
    expect(timeout.defaultWhen).toBeUndefined();
    expect(timeout.jsonDefault).toBeUndefined();
  });
});
