// Text summaries of rank 1 or 2 as a table, as TensorBoard shows them. Cells are text: every
// one is set with textContent, so "<img onerror=...>" in a cell stays those characters.

export const MAX_ROWS = 500;
export const MAX_COLUMNS = 100;

/**
 * A <table> of `rows` (a list of rows of strings; a rank-1 tensor comes as one cell per row),
 * at most `maxRows` rows and `maxColumns` columns, with a caption saying what was left out.
 */
export function buildTable(doc, rows, { maxRows = MAX_ROWS, maxColumns = MAX_COLUMNS } = {}) {
  const table = doc.createElement("table");
  table.className = "tbnb-text-table";
  const body = doc.createElement("tbody");
  const list = Array.isArray(rows) ? rows : [];
  let widest = 0;
  for (const row of list.slice(0, maxRows)) {
    const cells = Array.isArray(row) ? row : [row];
    widest = Math.max(widest, cells.length);
    const tr = doc.createElement("tr");
    for (const cell of cells.slice(0, maxColumns)) {
      const td = doc.createElement("td");
      td.textContent = cell === null || cell === undefined ? "" : String(cell);
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  const hidden = [];
  if (list.length > maxRows) hidden.push(`${list.length - maxRows} more rows`);
  if (widest > maxColumns) hidden.push(`${widest - maxColumns} more columns`);
  if (hidden.length) {
    const caption = doc.createElement("caption");
    caption.textContent = `Not shown: ${hidden.join(", ")}`;
    table.prepend(caption);
  }
  return table;
}
