/**
 * Structured logs: one JSON object per line. Known secrets (the bot token, API credentials, the webhook secret, a
 * password in the Bot API address) are scrubbed from every line whatever field they turn up in.
 */

export type Level = "info" | "warn" | "error"

export interface Logger {
  readonly log: (level: Level, event: string, fields?: Readonly<Record<string, unknown>>) => void
}

/** Shorter values are not scrubbed, as they would scrub ordinary words; the configuration refuses such secrets. */
export const MIN_SECRET_LENGTH = 4

/**
 * The text with every secret replaced, as written and as it reads inside a JSON string (a `"` or `\` in a secret is
 * escaped there); longest first, so a secret that contains another goes as a whole.
 */
export const scrub = (text: string, secrets: ReadonlyArray<string>): string =>
  [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH).flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))]
    .sort((a, b) => b.length - a.length)
    .reduce((out, secret) => out.split(secret).join("[redacted]"), text)

export const jsonLogger = (
  write: (line: string) => void,
  secrets: ReadonlyArray<string> = [],
  now: () => number = Date.now
): Logger => ({
  log: (level, event, fields = {}) => write(scrub(JSON.stringify({ time: new Date(now()).toISOString(), level, event, ...fields }), secrets))
})
