/**
 * The plain form of a domain type, as the Promise facade hands records out (plainRecord.ts makes and decodes them).
 * Below both plainRecord.ts and wireRecord.ts, whose hand-written decoders promise plain records too.
 */
import type * as BigDecimal from "effect/BigDecimal"
import type * as DateTime from "effect/DateTime"
import type * as Option from "effect/Option"

/**
 * The plain form of a domain type: `BigDecimal` → exact decimal string, `DateTime` → `Date`, `Option<A>` → `A` or
 * `undefined`, the rest field by field (field docs included).
 */
export type Plain<T> = T extends BigDecimal.BigDecimal ? string
  : T extends DateTime.DateTime ? Date
  : T extends Option.Option<infer A> ? Plain<A> | undefined
  : T extends ReadonlyArray<infer A> ? ReadonlyArray<Plain<A>>
  : T extends object ? { readonly [K in keyof T]: Plain<T[K]> }
  : T
