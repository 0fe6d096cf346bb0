/**
 * What every command's argument parser shares. Every parser is total: it returns the parsed arguments or the reason
 * they are wrong (shown with the command's usage line), and never throws, whatever the input.
 */
import { Either } from "effect"

export type Parsed<A> = Either.Either<A, string>

export const ok = Either.right
export const fail = (reason: string): Parsed<never> => Either.left(reason)

export const tokens = (payload: string): ReadonlyArray<string> => payload.trim().split(/\s+/).filter((token) => token.length > 0)

export const quote = (token: string) => JSON.stringify(token.length > 24 ? `${token.slice(0, 24)}…` : token)

// ── time ────────────────────────────────────────────────────────────────────────────────────────────────────────────

// a Map, not an object literal: a typed unit must not find what every object inherits
const UNIT_MILLIS: ReadonlyMap<string, number> = new Map([["m", 60_000], ["h", 3_600_000], ["d", 86_400_000], ["w", 604_800_000]])
const MAX_AGO_MILLIS = 10 * 365 * 86_400_000

/**
 * A point in time as typed, in UTC: `90m`, `24h`, `7d`, `2w` (that long ago), `2024-05-01` (the start of that day, or
 * its end when `edge` is `end`), or `2024-05-01T12:30`.
 */
export const parseTime = (token: string, now: number, edge: "start" | "end" = "start"): Parsed<number> => {
  const relative = /^(\d{1,6})([mhdw])$/.exec(token)
  if (relative !== null) {
    const millis = Number(relative[1]) * UNIT_MILLIS.get(relative[2]!)!
    return millis > MAX_AGO_MILLIS ? fail(`${quote(token)} is too far back`) : ok(now - millis)
  }
  const absolute = /^(\d{4})-(\d{2})-(\d{2})(?:t(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(token.toLowerCase())
  if (absolute === null) return fail(`${quote(token)} is not a time; use e.g. 24h, 7d or 2024-05-01`)
  const [year, month, day, hour, minute, second] = absolute.slice(1).map((part) => (part === undefined ? undefined : Number(part)))
  const millis = Date.UTC(year!, month! - 1, day!, hour ?? 0, minute ?? 0, second ?? 0)
  const check = new Date(millis)
  if (
    check.getUTCFullYear() !== year || check.getUTCMonth() !== month! - 1 || check.getUTCDate() !== day ||
    (hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59 || year! < 2000
  ) {
    return fail(`${quote(token)} is not a valid date`)
  }
  return ok(edge === "end" && hour === undefined ? millis + 86_400_000 - 1 : millis)
}

/** Meant as a time: a number and a unit letter (a wrong one, as in `3x`, is then told as a bad time) or a date. */
export const isTimeToken = (token: string) => /^\d+[a-z]$/.test(token) || /^\d{4}-\d{2}-\d{2}/.test(token)
