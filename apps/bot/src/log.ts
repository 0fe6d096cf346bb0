/**
 * Structured logs: one JSON object per line. Known secrets (the bot token, API credentials, the webhook secret) are
 * scrubbed from every line whatever field they turn up in.
 */

export type Level = "info" | "warn" | "error"

export interface Logger {
  readonly log: (level: Level, event: string, fields?: Readonly<Record<string, unknown>>) => void
}

/** The text with every secret replaced; very short values are left alone (they would scrub ordinary words). */
export const scrub = (text: string, secrets: ReadonlyArray<string>): string =>
  secrets.reduce((out, secret) => (secret.length >= 6 ? out.split(secret).join("[redacted]") : out), text)

export const jsonLogger = (
  write: (line: string) => void,
  secrets: ReadonlyArray<string> = [],
  now: () => number = Date.now
): Logger => ({
  log: (level, event, fields = {}) => write(scrub(JSON.stringify({ time: new Date(now()).toISOString(), level, event, ...fields }), secrets))
})
