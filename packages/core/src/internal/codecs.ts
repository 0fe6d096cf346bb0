/**
 * Codecs that domain records and both API versions share (docs/v3.md §1.7, §1.8): a futures symbol as V3 and the
 * streams write it (`BTCUSDT`, `cmt_btcusdt` in the domain) and ids sent as unquoted JSON numbers. They live below
 * every version's folder, so that no domain record imports a version.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { DigitString, specSymbol, SymbolInput } from "../Params.js"
import { RawInteger } from "./jsonText.js"
import * as W from "./wireRecord.js"

/** `BTCUSDT` for either form of a futures symbol. */
export const wireSymbol = (symbol: string): string => (symbol.startsWith("cmt_") ? symbol.slice(4).toUpperCase() : symbol)

/** A futures symbol in a V3 request: either form in, `BTCUSDT` on the wire. */
export const SymbolParam = Schema.transform(Schema.String, SymbolInput, { strict: true, decode: specSymbol, encode: wireSymbol })

const V3_SYMBOL = /^[A-Z0-9]{2,30}$/

const symbolOf = (wire: unknown): string | W.Invalid => (typeof wire === "string" && V3_SYMBOL.test(wire) ? specSymbol(wire) : W.INVALID)

const SymbolFromWire: Schema.Schema<string, string> = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (wire, _, ast) => {
    const symbol = symbolOf(wire)
    return symbol === W.INVALID
      ? ParseResult.fail(new ParseResult.Type(ast, wire, `Expected a V3 symbol like BTCUSDT, got ${JSON.stringify(wire)}`))
      : ParseResult.succeed(symbol)
  },
  encode: (symbol) => ParseResult.succeed(wireSymbol(symbol))
})

/** A symbol in an answer: `BTCUSDT` on the wire, `cmt_btcusdt` in the domain. */
export const symbol = (wireKey: string) => W.plain(wireKey, W.renamed(SymbolFromWire, wireKey), symbolOf)

/** An id sent as an unquoted JSON number of its exact digits (batch cancel's `orderIdList`, docs/v3.md §1.8). */
export const LongId: Schema.Schema<string, RawInteger> = Schema.transform(Schema.instanceOf(RawInteger), DigitString, {
  strict: true,
  decode: (raw) => raw.digits,
  encode: (digits) => new RawInteger(digits)
})
