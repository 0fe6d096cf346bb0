/** The simulator's public contract (the bot and core's integration tests rely on it). */

export interface DemoAccount {
  readonly apiKey: string
  readonly apiSecret: string
  readonly apiPassphrase: string
  readonly uid: string
  /** an agent (affiliate) account may read the affiliate statistics */
  readonly agent: boolean
}

export type OperationName =
  | "tickers"
  | "planOrders"
  | "batchOrders"
  | "spotBills"
  | "affiliateStats"
  | "placePlanOrder"
  | "time"
  | "openOrders"
  | "orderDetail"
  | "orderHistory"
  | "fills"
  | "cancelOrder"
  | "cancelOrders"
  | "cancelPlanOrder"
  | "planOrderHistory"
  | "closePositions"
  | "cancelAllOrders"
  | "positions"
  | "position"
  | "futuresAssets"
  | "accounts"
  | "accountSettings"
  | "setLeverage"
  | "setMarginMode"
  | "futuresBills"
  | "spotAssets"
  | "contracts"
  | "ticker"
  | "depth"
  | "candles"
  | "placeOrder"
  | "fundingRate"
  | "openInterest"
  | "marketTrades"
  | "fundingHistory"
  | "markPrice"
  | "adjustMargin"
  | "apiTradingSymbols"
  | "bookTicker"
  | "commissionRate"
  | "coins"
  | "spotExchangeInfo"
  | "ping"

/** `times`: the fault applies to the next N requests of the operation only, then clears itself. */
export type Fault = (
  | { readonly kind: "latency"; readonly ms: number }
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "malformed" }
  | { readonly kind: "truncated" }
  | { readonly kind: "drop" }
  | { readonly kind: "empty" }
  /** `retryAfterSeconds`: sent as a `Retry-After` header, which the exchange does not document but a proxy may add */
  | { readonly kind: "rateLimit"; readonly retryAfterSeconds?: number }
  /** the request is judged by a clock `ms` ahead of the real one (behind when negative): signatures and times */
  | { readonly kind: "clockSkew"; readonly ms: number }
  /**
   * the endpoint is not there: a V3 path answers 405 `{"code":-1150,"msg":"Request method 'POST' not supported"}` (as
   * the exchange answered batch placement before opening it), a V2 path 404 as an unknown path
   */
  | { readonly kind: "unsupported" }
) & { readonly times?: number }

export interface SimulatorOptions {
  /** default 0 (a free port); the host is 127.0.0.1 unless `host` is given */
  readonly port?: number
  /** when set, spot and affiliate are served by a second server on this port (0: a free one) */
  readonly spotPort?: number
  readonly host?: string
  /** default 1 */
  readonly seed?: number
  /** number of futures symbols, default 240 */
  readonly symbols?: number
  /** market tick interval, default 1000, at most 2 147 483 647; 0 = only manual ticks */
  readonly tickMs?: number
  /** injectable clock (ms), default Date.now */
  readonly now?: () => number
  /**
   * weight budgets (default 500 weight / 10 s per IP and per UID, 10 s penalty; V3 placement: 100 order units / 10 s per
   * account, published in V3's exchangeInfo `rateLimits`); false: no limits
   */
  readonly budget?: {
    readonly ipWeightPerWindow?: number
    readonly uidWeightPerWindow?: number
    readonly ordersPerWindow?: number
    readonly windowMs?: number
    readonly penaltyMs?: number
  } | false
  readonly faults?: Partial<Record<OperationName, Fault>>
  /**
   * serve the control routes under `/__sim` (default true); false: those paths are unknown (404), for a simulator
   * embedded where other local processes must not move its prices, inject faults or read its demo credentials
   */
  readonly admin?: boolean
  /** the WebSocket server's ping interval (ms), default 60 000 as the exchange's */
  readonly wsPingMs?: number
}

/** Test controls of the WebSocket streams (core's stream tests use them). */
export interface WsFaults {
  /** cuts every open socket, or those of one kind, abruptly (no close frame: the client sees 1006) */
  readonly drop: (kind?: "public" | "private") => void
  /** holds every later push this long (0: at once again); acks and pings are not held */
  readonly delay: (ms: number) => void
  /** the next depth diff of the symbol (V3 id, `BTCUSDT`) skips: its `U` is not the previous `u` */
  readonly skipSequence: (symbol: string) => void
}

/** Open WebSocket connections and their subscribed channels, by kind: a test sees a client reconnect and resubscribe. */
export interface WsStats {
  readonly publicSockets: number
  readonly privateSockets: number
  readonly publicSubscriptions: number
  readonly privateSubscriptions: number
}

export interface RunningSimulator {
  /** e.g. http://127.0.0.1:PORT (no trailing slash) */
  readonly futuresBaseUrl: string
  readonly spotBaseUrl: string
  /**
   * The contract WebSocket base, e.g. ws://127.0.0.1:PORT/v3/ws: `/public` and `/private` are appended, as on the
   * exchange. The same sockets answer under `/contract/v3/ws` (for clients that tell the market by the URL).
   */
  readonly futuresWsUrl: string
  /** The spot WebSocket base: ws://127.0.0.1:SPOTPORT/v3/ws with `spotPort`, else ws://127.0.0.1:PORT/spot/v3/ws */
  readonly spotWsUrl: string
  readonly wsFaults: WsFaults
  readonly wsStats: () => WsStats
  /** e.g. http://127.0.0.1:PORT/__sim (not served with `admin: false`) */
  readonly adminUrl: string
  readonly accounts: { readonly trader: DemoAccount; readonly agent: DemoAccount }
  /** advances the market by `times` ticks (default 1) */
  readonly tick: (times?: number) => void
  /**
   * Moves the symbol's last, mark and index price to `price` (a decimal string on the tick, e.g. "64000.0") at once,
   * then runs what follows: plan orders trigger, resting orders the price went through fill whole, positions past the
   * liquidation rule are liquidated. Throws a RangeError for an unknown symbol or a bad price.
   */
  readonly setPrice: (symbol: string, price: string) => void
  readonly setFault: (operation: OperationName, fault: Fault | undefined) => void
  /** requests received per operation, whatever their outcome */
  readonly counters: () => Readonly<Record<OperationName, number>>
  /**
   * client_oids accepted by batchOrders and plan_order (V2 and V3, and V3's single order) among the last 10 000 placements, in placement order across
   * accounts; only the account's when a key is given
   */
  readonly placedClientOids: (apiKey?: string) => ReadonlyArray<string>
  readonly close: () => Promise<void>
}
