import type TurndownService from 'turndown';
import { cellText } from './markdown-table-cell.js';
import { MAX_GRID_CELLS, tableGrid } from './markdown-table-grid.js';

/**
 * Each cell's and caption's Markdown, kept by the rules below for the table rule, which lays the
 * table out from its DOM rather than from the joined text: turndown converts children first, so
 * they are all here by the time it reaches the table.
 */
const converted = new WeakMap<Node, string>();

/**
 * GFM tables that never fall back to HTML and never throw: a table with cells becomes a Markdown
 * table (header row, `| --- |` line, every row as wide as the widest); one without cells becomes its
 * caption, or nothing.
 */
export function gfmTables(service: TurndownService): void {
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement(content, node) {
      converted.set(node, content);
      return `\n\n${content}\n\n`;
    },
  });
  service.addRule('tableCaption', {
    filter: 'caption',
    replacement(content, node) {
      converted.set(node, content);
      return content;
    },
  });
  service.addRule('table', {
    filter: 'table',
    replacement(_content, node) {
      const markdown = tableMarkdown(node, (element) => converted.get(element) ?? '');
      return markdown ? `\n\n${markdown}\n\n` : '';
    },
  });
}

/** The Markdown of one table, given the converted Markdown of its cells and caption. */
function tableMarkdown(table: Element, markdownOf: (element: Element) => string): string {
  const captionNode = Array.from(table.childNodes).find((n) => n.nodeName === 'CAPTION') as Element | undefined;
  const caption = captionNode ? markdownOf(captionNode).trim() : '';
  const grid = tableGrid(table);
  const cells = grid.rows.flat().filter((cell): cell is Element => cell !== null);
  // GFM tables cannot nest, and a table of one cell is a layout box: both are unwrapped, their
  // cells' content kept as blocks (an inner table then becomes the Markdown table).
  if (cells.length === 1 || cells.some((cell) => cell.getElementsByTagName('table').length > 0)) {
    return [caption, ...cells.map((cell) => markdownOf(cell).trim())].filter(Boolean).join('\n\n');
  }
  // Rows are padded to the full width for whoever reads the Markdown itself; GFM needs it only of
  // the header, so a table too big to pad is written without.
  const padTo = grid.rows.length * grid.width <= MAX_GRID_CELLS ? grid.width : 0;
  const text = grid.rows.map((row) =>
    Array.from({ length: Math.max(row.length, padTo) }, (_, i) => (row[i] ? cellText(markdownOf(row[i])) : '')),
  );
  if (!text.some((row) => row.some(Boolean))) return caption;
  // Without a header row GFM has no table: an empty one keeps the first row as data.
  const header = grid.hasHeader ? text[0]! : [];
  while (header.length < grid.width) header.push('');
  // Rows left empty (spacers, or cells emptied by hidden content) carry nothing.
  const body = (grid.hasHeader ? text.slice(1) : text).filter((row) => row.some(Boolean));
  const lines = [header, Array.from({ length: grid.width }, () => '---'), ...body].map((row) => `| ${row.join(' | ')} |`);
  return [caption, lines.join('\n')].filter(Boolean).join('\n\n');
}
