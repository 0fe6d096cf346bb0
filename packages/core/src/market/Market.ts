/**
 * Public market data of the futures exchange (docs/trading.md §7, §10): contracts, one ticker, the order book and
 * candles. Contracts rarely change: `contract(symbol)` serves them from a cache of the whole list, refreshed after
 * `CONTRACTS_TTL`, so checking an order against its rules (`ContractRules.check`) costs no request.
 */
import * as Cache from "effect/Cache"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { InputError } from "../Errors.js"
import type { TradeDeskError } from "../Errors.js"
import type { Ticker } from "./Ticker.js"
import { specSymbol } from "../Params.js"
import { TradingHttp } from "../TradingHttp.js"
import type { Candle, CandlesRequest } from "./Candle.js"
import type { Contract, ContractsRequest } from "./Contract.js"
import type { Depth, DepthRequest } from "./Depth.js"

/** How long the contract list is kept before it is asked again. */
export const CONTRACTS_TTL = Duration.hours(1)

export class Market extends Context.Tag("@tradedesk/core/Market")<Market, {
  /** contract rules of one symbol, or of every symbol (weight IP 10); always asks the exchange */
  readonly contracts: (params?: ContractsRequest) => Effect.Effect<ReadonlyArray<Contract>, TradeDeskError>
  /**
   * One symbol's contract from the cached list (asked at most once per `CONTRACTS_TTL`; a failure is not kept). An
   * unknown symbol is an InputError on `symbol`.
   */
  readonly contract: (symbol: string) => Effect.Effect<Contract, TradeDeskError>
  /** one symbol's ticker (weight IP 1) */
  readonly ticker: (params: { readonly symbol: string }) => Effect.Effect<Ticker, TradeDeskError>
  /** one symbol's order book, 15 or 200 levels a side (weight IP 1) */
  readonly depth: (params: DepthRequest) => Effect.Effect<Depth, TradeDeskError>
  /** one symbol's candles, oldest first (weight IP 1) */
  readonly candles: (params: CandlesRequest) => Effect.Effect<ReadonlyArray<Candle>, TradeDeskError>
}>() {}

const make = Effect.gen(function*() {
  const http = yield* TradingHttp
  const contracts = (params?: ContractsRequest) => http.call(http.wire.contracts, params ?? {})
  const all = yield* Cache.makeWith({
    capacity: 1,
    lookup: (_: "all") => Effect.map(contracts(), (list) => new Map(list.map((contract) => [contract.symbol, contract]))),
    timeToLive: (exit) => (Exit.isSuccess(exit) ? CONTRACTS_TTL : Duration.zero)
  })
  // a failure is forgotten at once: a time to live of zero still serves it within the same millisecond
  const contractsBySymbol = Effect.tapError(all.get("all"), () => all.invalidate("all"))
  const contract = (symbol: string) =>
    Effect.flatMap(contractsBySymbol, (bySymbol) => {
      const found = bySymbol.get(specSymbol(symbol))
      return found === undefined
        ? Effect.fail(new InputError({ endpoint: "contracts", field: "symbol", reason: `no futures contract ${JSON.stringify(symbol)}` }))
        : Effect.succeed(found)
    })
  
  return Market.of({
    contracts,
    contract,
    ticker: (params: { readonly symbol: string }) => http.call(http.wire.ticker, params),
    depth: (params: DepthRequest) => http.call(http.wire.depth, params),
    candles: (params: CandlesRequest) => http.call(http.wire.candles, params)
  })
})

export const layer: Layer.Layer<Market, never, TradingHttp> = Layer.effect(Market, make)
