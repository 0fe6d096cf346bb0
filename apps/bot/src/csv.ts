/** CSV (RFC 4180): comma-separated, CRLF line ends, fields quoted when they hold a comma, a quote or a line break. */

const field = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value)

export const toCsv = (header: ReadonlyArray<string>, rows: Iterable<ReadonlyArray<string>>): string => {
  const lines = [header.map(field).join(",")]
  for (const row of rows) lines.push(row.map(field).join(","))
  return `${lines.join("\r\n")}\r\n`
}
