import { FORMAT_ALIASES, FORMAT_NAMES_TEXT, FORMATS, QUALITY_FORMATS } from '../../formats/registry.js';
import { booleanField, enumField, integerField, listOf, textField } from '../fields.js';
import { meta } from './meta.js';

/** What comes back: the format, its quality, and how it is delivered. */
export const outputParameters = {
  format: meta('output', enumField(FORMATS, FORMAT_ALIASES).default('png'), {
    description: 'Output format.',
    allowed: FORMAT_NAMES_TEXT,
    choices: FORMATS,
    default: 'png',
  }),
  extra_formats: meta('output', listOf(enumField(FORMATS, FORMAT_ALIASES), 4, { commas: true }).optional(), {
    description:
      'More outputs of the same page state, rendered in the same capture and charged once: up to 4 formats other than format. ' +
      'Needs response_type=json, upload=1 or async=1; the JSON answer holds them under extra (text for markdown and html, ' +
      'data_base64 for the others, url when stored). Rendered after format, in the order given, pdf last.',
    allowed: `up to 4 of ${FORMATS.join(', ')}, each once and not format itself; repeat the parameter or separate them with commas`,
    example: 'markdown',
  }),
  quality: meta('output', integerField(0, 100).default(80), {
    description: 'Image quality of lossy formats.',
    allowed: 'integer 0–100',
    default: '80',
    formats: QUALITY_FORMATS,
  }),
  full_page: meta('output', booleanField().default(false), {
    description: 'Capture the whole scrollable page instead of the viewport (height capped by the operator).',
    allowed: 'boolean: 1, 0, true, false',
    default: 'false',
  }),
  upload: meta('output', booleanField().default(false), {
    description: 'Store the file and answer JSON with a signed URL instead of the file.',
    allowed: 'boolean',
    default: 'false',
  }),
  attachment_name: meta('output', textField(255, 'a file name').optional(), {
    description: 'Download file name: sets Content-Disposition: attachment. The format extension is appended if missing.',
    allowed: 'file name, at most 255 characters, without / \\ or control characters',
    default: 'none (inline)',
  }),
};
