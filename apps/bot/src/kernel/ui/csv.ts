/**
 * CSV (RFC 4180): comma-separated, CRLF line ends, fields quoted when they hold a comma, a quote or a line break.
 *
 * A spreadsheet reads a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula, which text
 * from the exchange must never become (CSV injection): such a text cell gets a leading `'`, which spreadsheets show as
 * text. A number the bot formatted (`-12.5`) is data and stays readable as a number.
 */

export interface Column<Row> {
  readonly name: string
  /** `text`: anything, neutralised; `number`: a plain decimal the bot formatted (any other value is treated as text) */
  readonly kind: "text" | "number"
  readonly value: (row: Row) => string
}

/** What a spreadsheet may take for a formula: a trigger character, after blanks or not (full-width forms included). */
const FORMULA = /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/

const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/

const cell = (value: string, kind: Column<unknown>["kind"]): string =>
  (kind === "number" && PLAIN_NUMBER.test(value)) || !FORMULA.test(value) ? value : `'${value}`

const field = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value)

export const toCsv = <Row>(columns: ReadonlyArray<Column<Row>>, rows: Iterable<Row>): string => {
  const lines = [columns.map((column) => field(cell(column.name, "text"))).join(",")]
  for (const row of rows) lines.push(columns.map((column) => field(cell(column.value(row), column.kind))).join(","))
  return `${lines.join("\r\n")}\r\n`
}
