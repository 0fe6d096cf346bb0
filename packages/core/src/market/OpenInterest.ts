/**
 * The open interest of one futures symbol: V2 `GET /capi/v2/market/open_interest` (an array of one record, its
 * `base_volume`), V3 `GET /capi/v3/market/openInterest` (one record, its `openInterest`) (docs/v3.md §21b). Both
 * pages describe the amount in their own words (V2 "total open interest … base coin", V3 "contracts"); it is kept as
 * sent.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

export const OpenInterestRequest = Schema.Struct({ symbol: FuturesSymbol })
export type OpenInterestRequest = RecordType<typeof OpenInterestRequest>

const record = W.record({
  /** wire `symbol`, e.g. `cmt_btcusdt` */
  symbol: W.text("symbol"),
  /** wire `base_volume` (V2), `openInterest` (V3): the open interest, in the unit each page names */
  openInterest: W.decimal("base_volume"),
  /** wire `timestamp` (V2), `time` (V3): the exchange's time of the amount */
  timestamp: W.timestamp("timestamp")
})

/** Schema of one symbol's open interest: Type is the domain record, Encoded the exact V2 wire record. */
export const OpenInterest = record.schema
export type OpenInterest = RecordType<typeof OpenInterest>

/**
 * The one record of an answer documented as an array of one (a bare record read too); an empty list or one of
 * several records is refused.
 */
export const onlyRecord = <I>(list: W.Codec<ReadonlyArray<OpenInterest>, ReadonlyArray<I>>): W.Codec<OpenInterest, ReadonlyArray<I>> => {
  const asList = (wire: unknown) => (Array.isArray(wire) || wire === null || typeof wire !== "object" ? wire : [wire])
  const schema = Schema.transformOrFail(list.schema, Schema.typeSchema(OpenInterest), {
    strict: true,
    decode: (records, _, ast) =>
      records.length === 1 ? ParseResult.succeed(records[0]!) : ParseResult.fail(new ParseResult.Type(ast, records, `Expected one record, got ${records.length}`)),
    encode: (one) => ParseResult.succeed([one])
  })
  const decodeFull = Schema.decodeUnknownEither(schema, { errors: "first" })
  return {
    schema,
    fast: (wire, limits) => {
      const records = list.fast(asList(wire), limits)
      return records === W.INVALID || records.length !== 1 ? W.INVALID : records[0]!
    },
    decode: (wire, limits) =>
      Either.flatMap(list.decode(asList(wire), limits), (records) => (records.length === 1 ? Either.right(records[0]!) : decodeFull(asList(wire))))
  }
}

/** Decoder of V2's answer, `[{ symbol, base_volume, target_volume, timestamp, … }]`. */
export const OpenInterestAnswer = onlyRecord(W.many(record))
