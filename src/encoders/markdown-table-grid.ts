/**
 * An HTML table laid out as rows of cells, the way a browser places them: spans expanded, so that
 * each cell lands in the column it is shown in.
 */
export interface TableGrid {
  /** Per row, the cell shown first in each column, or null where a span fills it; no trailing nulls. */
  rows: (Element | null)[][];
  /** The number of columns: the widest row, spans counted. */
  width: number;
  /** Whether the first row is a header row: in `thead`, or all `th`. */
  hasHeader: boolean;
}

/**
 * The most grid positions a table is laid out on. Spans multiply positions (a 20-byte
 * `<td colspan="1000">` fills 1000), so past this a hostile table is laid out without them.
 */
export const MAX_GRID_CELLS = 1_000_000;

// The limits HTML itself puts on spans; a larger value is read as these.
const MAX_COLSPAN = 1000;
const MAX_ROWSPAN = 65534;

/** The table's own rows and cells (not those of tables nested in it) on a grid. */
export function tableGrid(table: Element): TableGrid {
  const { rows: trs, headRows } = rowsOf(table);
  const cells = trs.map(cellsOf);
  const rows = layOut(cells, true) ?? layOut(cells, false)!;
  let width = 0;
  for (const row of rows) width = Math.max(width, row.length);
  const first = trs[0];
  const hasHeader = first !== undefined && (headRows.has(first) || (cells[0]!.length > 0 && cells[0]!.every((c) => c.nodeName === 'TH')));
  return { rows, width, hasHeader };
}

/** Cells placed in columns, with or without their spans; null when the spans need too many positions. */
function layOut(cells: Element[][], withSpans: boolean): (Element | null)[][] | null {
  const rows: (Element | null)[][] = [];
  // Per column, how many more rows a rowspan from above still covers.
  const carry: number[] = [];
  let positions = 0;
  for (const [index, rowCells] of cells.entries()) {
    const covered = carry.map((n) => n > 0);
    for (let c = 0; c < carry.length; c++) carry[c] = Math.max(0, carry[c]! - 1);
    const row: (Element | null)[] = [];
    let col = 0;
    for (const cell of rowCells) {
      while (covered[col]) row[col++] = null;
      const colspan = withSpans ? spanOf(cell, 'colspan', MAX_COLSPAN, 1) : 1;
      // rowspan="0" spans the rest of the table.
      const rowspan = withSpans ? spanOf(cell, 'rowspan', MAX_ROWSPAN, cells.length - index) : 1;
      for (let k = 0; k < colspan; k++) {
        row[col + k] = k === 0 ? cell : null;
        if (rowspan > 1) carry[col + k] = Math.max(carry[col + k] ?? 0, rowspan - 1);
      }
      col += colspan;
    }
    // Spans after the last cell fill nothing that needs writing: GFM leaves missing cells empty.
    while (row.length > 0 && row[row.length - 1] === null) row.pop();
    positions += Math.max(row.length, carry.length);
    if (withSpans && positions > MAX_GRID_CELLS) return null;
    rows.push(row);
  }
  return rows;
}

/** Rows in the order they are shown: head rows, then body and bare rows, then foot rows. */
function rowsOf(table: Element): { rows: Element[]; headRows: Set<Element> } {
  const head: Element[] = [];
  const body: Element[] = [];
  const foot: Element[] = [];
  const rowsIn = (section: Element, into: Element[]) => {
    for (const e of elementsIn(section)) if (e.nodeName === 'TR') into.push(e);
  };
  for (const child of elementsIn(table)) {
    if (child.nodeName === 'TR') body.push(child);
    else if (child.nodeName === 'THEAD') rowsIn(child, head);
    else if (child.nodeName === 'TBODY') rowsIn(child, body);
    else if (child.nodeName === 'TFOOT') rowsIn(child, foot);
  }
  return { rows: head.concat(body, foot), headRows: new Set(head) };
}

function cellsOf(tr: Element): Element[] {
  return elementsIn(tr).filter((e) => e.nodeName === 'TD' || e.nodeName === 'TH');
}

// childNodes rather than children: turndown's DOM outside a browser is minimal.
function elementsIn(node: Element): Element[] {
  return Array.from(node.childNodes).filter((n): n is Element => n.nodeType === 1);
}

function spanOf(cell: Element, name: 'colspan' | 'rowspan', max: number, ifZero: number): number {
  const n = Number.parseInt(cell.getAttribute(name) ?? '', 10);
  if (!Number.isFinite(n) || n < 0) return 1;
  return n === 0 ? Math.max(1, ifZero) : Math.min(n, max);
}
