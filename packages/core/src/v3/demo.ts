/**
 * The exchange's demo trading (docs/v3.md "Demo trading"): demo money on the live contract host, through four V3
 * endpoints under `/capi/v3/sim/` — balance, positions, one order per request, order history. Every other operation of
 * the services is `Unsupported` here, derived from the list of operations, so an operation added later is refused
 * until someone binds it. Market reads are the live public ones: the demo trades at live prices and they need no
 * account.
 *
 * The demo names a contract `BTCSUSDT` (the base, then `SUSDT`) and its money `SUSDT`. Callers keep `cmt_btcusdt` (or
 * `BTCUSDT`) for symbols, as everywhere; answers read `BTCSUSDT` as `cmt_btcusdt`. The asset stays `SUSDT`, as the
 * exchange says, so that demo money is never shown as if it were real USDT.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InputError } from "../Errors.js"
import * as W from "../internal/wireRecord.js"
import type { BatchOrdersRequest, BatchOrdersResponse } from "../orders/BatchOrder.js"
import { specSymbol } from "../Params.js"
import type * as Position from "../positions/Position.js"
import { OPERATION_NAMES } from "../Operations.js"
import type { OperationName } from "../Operations.js"
import type { Composite, Unsupported, WireParams, WireTable } from "../Wire.js"
import * as Account from "./account.js"
import * as Market from "./market.js"
import * as OrderReads from "./orderReads.js"
import * as OrderWrites from "./orderWrites.js"
import * as V3 from "./table.js"

/** What the demo's four endpoints carry, for the reason given for the rest. */
const SERVED = "balances, positions, order placement and order history"

/** `BTCUSDT` as the demo names it: `BTCSUSDT`; none for a symbol not quoted in USDT. */
const demoWireSymbol = (v3Symbol: string): string | undefined =>
  v3Symbol.endsWith("USDT") ? `${v3Symbol.slice(0, -4)}SUSDT` : undefined

/**
 * A symbol of a demo answer in the callers' form: `cmt_btcsusdt` (read from `BTCSUSDT` by V3's decoder) is
 * `cmt_btcusdt`. A V3 name (`BTCUSDT`, which the history's filter takes) passes unchanged, unless its base itself ends
 * in `S`: such a name can only be read as the demo's.
 */
const callersSymbol = (symbol: string): string => symbol.replace(/susdt$/, "usdt")

/** The callers' symbol as the demo's answer writes it (`cmt_btcusdt` → `cmt_btcsusdt`, `BTCSUSDT` on the wire). */
const demoSymbol = (symbol: string): string => symbol.replace(/usdt$/, "susdt")

/**
 * A V3 answer codec whose records name symbols as the demo does: read into the callers' form, written back in the
 * demo's. Both decode paths (fast and full) give the same records.
 */
const demoSymbols = <R extends { readonly symbol: string }, I>(codec: W.Codec<ReadonlyArray<R>, I>): W.Codec<ReadonlyArray<R>, I> => {
  const read = (records: ReadonlyArray<R>) => records.map((record) => ({ ...record, symbol: callersSymbol(record.symbol) }))
  const written = (records: ReadonlyArray<R>) => records.map((record) => ({ ...record, symbol: demoSymbol(record.symbol) }))
  return {
    schema: Schema.transform(codec.schema, Schema.typeSchema(codec.schema), { strict: true, decode: read, encode: written }),
    fast: (wire, limits) => {
      const records = codec.fast(wire, limits)
      return records === W.INVALID ? W.INVALID : read(records)
    },
    decode: (wire, limits) => Either.map(codec.decode(wire, limits), read)
  }
}

/**
 * A V3 request body whose `symbol` the demo takes in its own form: V3's `BTCUSDT` goes out as `BTCSUSDT`. A symbol
 * not quoted in USDT has no demo form and is refused before anything is sent.
 */
const demoSymbolBody = <P>(request: Schema.Schema<P, WireParams>): Schema.Schema<P, WireParams> =>
  Schema.transformOrFail(Schema.encodedSchema(request), request, {
    strict: true,
    decode: (wire) => ParseResult.succeed(typeof wire.symbol === "string" ? { ...wire, symbol: wire.symbol.replace(/SUSDT$/, "USDT") } : wire),
    encode: (wire, _, ast) => {
      const asked = wire.symbol
      const symbol = typeof asked === "string" ? demoWireSymbol(asked) : undefined
      return symbol === undefined
        ? ParseResult.fail(
          new ParseResult.Pointer(["symbol"], wire, new ParseResult.Type(ast, asked, `the exchange's demo trades USDT contracts only (as BTCSUSDT), got ${String(asked)}`))
        )
        : ParseResult.succeed({ ...wire, symbol })
    }
  })

/** `GET /capi/v3/sim/balance`: V3's balance, asset `SUSDT` (IP 5). */
export const balance: typeof Account.futuresAssets = { ...Account.futuresAssets, path: "/capi/v3/sim/balance" }

/** `GET /capi/v3/sim/position/allPosition`: V3's positions, symbols as `BTCSUSDT` (IP 10). */
export const positions: typeof Account.positions = {
  ...Account.positions,
  path: "/capi/v3/sim/position/allPosition",
  response: demoSymbols(Account.positions.response)
}

/**
 * `POST /capi/v3/sim/order`: one order, V3's fields, the symbol as `BTCSUSDT` (ORDERS 1). A batch goes out one order
 * per request, each a write sent once, stopping at the first whose outcome is unknown: V3's rule for its single-order
 * fallback, so that a caller's batch (the bot places even one order as a batch) works as on V3.
 */
export const placeOrder: typeof OrderWrites.placeOne = {
  ...OrderWrites.placeOne,
  path: "/capi/v3/sim/order",
  request: demoSymbolBody(OrderWrites.placeOne.request)
}

/**
 * `GET /capi/v3/sim/order/history`: V3's history query (page from 0). Its `symbol` filter is V3's `BTCUSDT`: the live
 * demo refuses `BTCSUSDT` there (docs/v3.md "Demo trading"). Answers' symbols are read in either form (IP 10).
 */
export const orderHistory: typeof OrderReads.orderHistory = {
  ...OrderReads.orderHistory,
  path: "/capi/v3/sim/order/history",
  response: demoSymbols(OrderReads.orderHistory.response)
}

const batchOrders: Composite<BatchOrdersRequest, BatchOrdersResponse> = {
  _tag: "Composite",
  name: "batchOrders",
  run: OrderWrites.placeBatch({ chunk: undefined, single: placeOrder })
}

/** One symbol's positions: the demo has no single-position endpoint, so its list of all, kept to the symbol. */
const position: Composite<Position.PositionRequest, ReadonlyArray<Position.Position>> = {
  _tag: "Composite",
  name: "position",
  run: (call, request) =>
    Either.match(Schema.encodeUnknownEither(Account.position.request)(request ?? {}), {
      onLeft: () => Effect.fail(new InputError({ endpoint: "position", field: "symbol", reason: "expected a futures symbol like cmt_btcusdt (or BTCUSDT)" })),
      onRight: (wire) => Effect.map(call(positions, {}), (all) => all.filter((held) => held.symbol === specSymbol(String(wire.symbol))))
    })
}

const unsupported = (name: OperationName): Unsupported => ({
  _tag: "Unsupported",
  name,
  reason: `the exchange's demo trading has no ${name}: it has ${SERVED} only (a real account, demo off, has it)`
})

/** Every operation refused, for the served ones to replace: a new operation is refused until it is bound here. */
const NONE_SERVED = Object.fromEntries(OPERATION_NAMES.map((name) => [name, unsupported(name)])) as {
  readonly [K in OperationName]: Unsupported
}

export const table: WireTable = {
  ...NONE_SERVED,
  ...Market.operations,
  futuresAssets: balance,
  positions,
  position,
  batchOrders,
  orderHistory,
  version: "v3",
  serverTime: V3.serverTime,
  hooks: V3.hooks
}
