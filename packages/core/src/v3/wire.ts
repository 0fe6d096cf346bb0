/**
 * What V3 writes differently from V2 (docs/v3.md §1.4, §1.7, §1.8): its endpoints' envelope, symbols as `BTCUSDT`,
 * ids as JSON numbers in some request bodies. Callers and answers keep the specification's `cmt_btcusdt` on both
 * versions; V3's form lives only on the wire.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { RawInteger } from "../internal/jsonText.js"
import * as W from "../internal/wireRecord.js"
import { DigitString, specSymbol, SymbolInput } from "../Params.js"
import * as Wire from "../Wire.js"
import type { OperationName } from "../Operations.js"
import type { Endpoint, EndpointFields, WireParams } from "../Wire.js"

/** A V3 endpoint: the defaults of every endpoint (Wire.ts) with V3's envelope, errors as a negative `code`. */
export const endpoint = <P, A, I extends WireParams, O>(fields: EndpointFields<P, A, I, O>): Endpoint<P, A> => Wire.endpoint({ envelope: "v3", ...fields })

/** An operation's own V3 request: its write keys are the operation's (Operations.ts), its envelope V3's. */
export const request = <K extends OperationName, I extends WireParams, O>(name: K, fields: Parameters<typeof Wire.request<K, I, O>>[1]) =>
  Wire.request(name, { envelope: "v3", ...fields })

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
