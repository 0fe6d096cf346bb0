/**
 * The exchange's V3 WebSocket API (FACTS-ws) on the simulator's HTTP servers: `/v3/ws/public` and `/v3/ws/private`
 * (also under `/contract/…`, and under `/spot/…` on a shared port). The upgrade needs a `User-Agent` (else 403); a
 * private one the signed headers (else 401 with a V3 error body). Then the protocol of §1, §3, §4 — greeting, pings,
 * acks, refusals, 1007 at the sixth refusal — and pushes from the exchange's events: public channels on every market
 * move (and trade), private ones per account on every order change, execution, funding and leverage change. Test
 * faults: drop sockets, delay pushes, break a depth chain.
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import { WebSocket, WebSocketServer } from "ws"
import type { RawData } from "ws"
import { authenticateUpgrade } from "../auth.js"
import type { Delays } from "../Delays.js"
import type { ExchangeEvent } from "../ExchangeEvents.js"
import { body as errorBody, isFailure } from "../failures.js"
import type { Position } from "../Futures.js"
import { uuidOf } from "../marketTrades.js"
import type { Order, Trade } from "../Orders.js"
import { Prng } from "../Prng.js"
import type { Served } from "../server.js"
import type { Simulation } from "../Simulation.js"
import type { DemoAccount, WsStats } from "../types.js"
import { toV3 } from "../v3/errors.js"
import type { Book, Channel, PrivateChannel, Visibility } from "./channels.js"
import {
  bookOf,
  candlesOf,
  depthDiff,
  depthSnapshot,
  invalidEvent,
  klineFrame,
  parseChannel,
  tickerFigures,
  tickerFrame,
  recentTrades,
  tradeFrame,
  tradesFrame,
  unrecognized
} from "./channels.js"
import { accountPush, fillPush, orderPush, positionPush } from "./privateRecords.js"

export type WsMarket = "contract" | "spot"


/** Frames above this are refused by closing (1009). */
const MAX_PAYLOAD = 64 * 1024
/** channels one socket may hold (the documented limit) */
const MAX_CHANNELS = 100
/** the sixth rejected request closes the socket */
const MAX_REJECTS = 6
/** a socket that leaves more than this many pings unanswered is closed */
const MAX_UNANSWERED_PINGS = 10
/** depth update ids start here, like the exchange's large engine sequence numbers */
const FIRST_UPDATE_ID = 16_786_244_000

interface Subscription {
  readonly channel: Channel
  /** ticker and kline: the figures last pushed, to push only changes */
  last: string | undefined
  /** depth: the book last pushed and the `u` it ended with */
  book: Book | undefined
  updateId: number
  /** trade: the REST ids of the market trades last listed, all of them sent */
  trades: ReadonlySet<bigint>
}

interface Connection {
  readonly socket: WebSocket
  readonly visibility: Visibility
  readonly market: WsMarket
  readonly account: DemoAccount | undefined
  readonly subscriptions: Map<string, Subscription>
  rejects: number
  unanswered: number
}

type RequestId = number | string | undefined

const ROUTES: ReadonlyArray<{ readonly prefix: string; readonly market: WsMarket | "served" }> = [
  { prefix: "/v3/ws/", market: "served" },
  { prefix: "/contract/v3/ws/", market: "contract" },
  { prefix: "/spot/v3/ws/", market: "spot" }
]

/** The market and visibility a path opens on a server serving `served`, or undefined (404). */
const routeOf = (path: string, served: Served): { readonly market: WsMarket; readonly visibility: Visibility } | undefined => {
  for (const route of ROUTES) {
    if (!path.startsWith(route.prefix)) continue
    const rest = path.slice(route.prefix.length)
    if (rest !== "public" && rest !== "private") return undefined
    const market = route.market === "served" ? (served === "spot" ? "spot" : "contract") : route.market
    const offered = served === "both" || (served === "spot") === (market === "spot")
    return offered ? { market, visibility: rest } : undefined
  }
  return undefined
}

const STATUS_LINE: Readonly<Record<number, string>> = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" }

/** Answers an upgrade with an HTTP refusal and closes the connection. */
const refuseUpgrade = (socket: Duplex, status: number, text: string, contentType: string) => {
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_LINE[status] ?? "Error"}\r\ncontent-type: ${contentType}\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`
  )
}

/** A frame's text, text or binary alike. */
const textOf = (data: RawData): string =>
  (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString("utf8")

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export class WsServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD })
  private readonly connections = new Set<Connection>()
  /** the account's push counter `v`, shared by its channels */
  private readonly versions = new Map<string, number>()
  /** symbols (the simulator's) whose next depth diff skips a sequence number */
  private readonly skips = new Set<string>()
  private readonly pinger: NodeJS.Timeout
  private readonly stopObserving: () => void
  private nextUpdateId = FIRST_UPDATE_ID
  private opened = 0
  private delayMs = 0
  private closed = false

  constructor(
    private readonly simulation: Simulation,
    private readonly seed: number,
    pingMs: number,
    private readonly delays: Delays
  ) {
    this.stopObserving = simulation.exchange.events.observe((event) => {
      // a fault in the streams is a bug to report, never a reason to fail the trade that caused the event
      try {
        this.onEvent(event)
      } catch (defect) {
        console.error("simulator stream defect:", defect)
      }
    })
    this.pinger = setInterval(() => this.ping(), pingMs)
    this.pinger.unref()
  }

  /** Serves upgrades on `server` (which serves `served` markets). */
  attach(server: Server, served: Served): void {
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head, served))
  }

  stats(): WsStats {
    const count = (visibility: Visibility) => {
      const mine = [...this.connections].filter((connection) => connection.visibility === visibility)
      return { sockets: mine.length, subscriptions: mine.reduce((sum, connection) => sum + connection.subscriptions.size, 0) }
    }
    const [pub, priv] = [count("public"), count("private")]
    return { publicSockets: pub.sockets, privateSockets: priv.sockets, publicSubscriptions: pub.subscriptions, privateSubscriptions: priv.subscriptions }
  }

  /** Cuts every open socket (or those of one visibility) abruptly: no close frame, the client sees 1006. */
  drop(visibility?: Visibility): void {
    for (const connection of this.connections) {
      if (visibility !== undefined && connection.visibility !== visibility) continue
      connection.socket.terminate()
      // gone at once for `stats`, not when the close event comes round
      this.connections.delete(connection)
    }
  }

  /** Holds every later push `ms` before sending it (0: at once); acks and pings are not held. */
  delay(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`delay must be a non-negative number of ms, got ${ms}`)
    this.delayMs = ms
  }

  /** The next depth diff of the symbol (V3 id, e.g. BTCUSDT) on every subscription skips: its `U` is not the last `u`. */
  skipSequence(symbol: string): void {
    const instrument = this.simulation.exchange.market.instrument(`cmt_${symbol.toLowerCase()}`)
    if (instrument === undefined) throw new RangeError(`no symbol ${symbol}`)
    this.skips.add(instrument.symbol)
  }

  close(): void {
    this.closed = true
    clearInterval(this.pinger)
    this.stopObserving()
    for (const connection of this.connections) connection.socket.terminate()
    this.connections.clear()
    this.wss.close()
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, served: Served): void {
    const url = req.url ?? "/"
    const route = routeOf(url.split("?")[0] ?? url, served)
    if (route === undefined || this.closed) return refuseUpgrade(socket, 404, "Not Found", "text/plain")
    const agent = req.headers["user-agent"]
    if (agent === undefined || agent.length === 0) return refuseUpgrade(socket, 403, "Forbidden: a User-Agent header is required", "text/plain")
    let account: DemoAccount | undefined
    if (route.visibility === "private") {
      const now = this.simulation.now()
      const logged = authenticateUpgrade(req.headers, this.simulation.accounts, now)
      if (isFailure(logged)) {
        const refusal = toV3(logged)
        return refuseUpgrade(socket, refusal.status, JSON.stringify(errorBody(refusal, now)), "application/json")
      }
      account = logged
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws, route.market, route.visibility, account))
  }

  private open(socket: WebSocket, market: WsMarket, visibility: Visibility, account: DemoAccount | undefined): void {
    const connection: Connection = { socket, visibility, market, account, subscriptions: new Map(), rejects: 0, unanswered: 0 }
    this.connections.add(connection)
    socket.on("close", () => this.connections.delete(connection))
    socket.on("error", () => socket.terminate())
    socket.on("message", (data) => this.receive(connection, data))
    this.reply(connection, { cid: this.connectionId(), event: "connected", time: String(this.simulation.now()) })
  }

  /** A UUID per connection, drawn from the seed: the same run hands out the same ids. */
  private connectionId(): string {
    const prng = Prng.derive(this.seed, `ws/${this.opened++}`)
    let id = 0n
    for (let i = 0; i < 4; i++) id = (id << 32n) | BigInt(prng.int(0, 0xffff_ffff))
    return uuidOf(id)
  }

  private ping(): void {
    const time = String(this.simulation.now())
    for (const connection of this.connections) {
      if (connection.unanswered > MAX_UNANSWERED_PINGS) {
        connection.socket.close(1000, "too many unanswered pings")
        continue
      }
      connection.unanswered++
      this.reply(connection, connection.visibility === "public" ? { event: "ping", time } : { type: "ping", time })
    }
  }

  /** Sends a frame now (acks, pings, greetings). */
  private reply(connection: Connection, frame: object): void {
    if (connection.socket.readyState === WebSocket.OPEN) connection.socket.send(JSON.stringify(frame))
  }

  /** Sends a push, held back while a `delay` fault is set (timers of one length fire in order). */
  private push(connection: Connection, frame: object): void {
    if (this.delayMs === 0) return this.reply(connection, frame)
    this.delays.after(this.delayMs, () => this.reply(connection, frame))
  }

  private answer(connection: Connection, id: RequestId): void {
    this.reply(connection, id === undefined ? { result: true } : { result: true, id })
  }

  private reject(connection: Connection, id: RequestId, msg: string): void {
    this.reply(connection, id === undefined ? { result: false, msg } : { result: false, id, msg })
    connection.rejects++
    if (connection.rejects >= MAX_REJECTS) connection.socket.close(1007, "Unrecognized message sent multiple times")
  }

  private receive(connection: Connection, data: RawData): void {
    const text = textOf(data)
    let request: unknown
    try {
      request = JSON.parse(text)
    } catch {
      return this.reject(connection, undefined, unrecognized(text))
    }
    if (!isObject(request)) return this.reject(connection, undefined, unrecognized(text))
    const rawId = request["id"]
    const id: RequestId = typeof rawId === "number" || typeof rawId === "string" ? rawId : undefined
    const method = typeof request["method"] === "string" ? request["method"].toUpperCase() : ""
    switch (method) {
      case "PING":
        return this.answer(connection, id)
      case "PONG":
        connection.unanswered = 0
        // the public socket acknowledges a pong, the private one does not (FACTS-ws §3)
        if (connection.visibility === "public") this.answer(connection, id)
        return
      case "SUBSCRIBE":
      case "UNSUBSCRIBE": {
        const params = request["params"]
        if (!Array.isArray(params) || params.length === 0 || !params.every((param) => typeof param === "string")) {
          return this.reject(connection, id, invalidEvent(""))
        }
        const names: ReadonlyArray<string> = params
        return method === "SUBSCRIBE" ? this.subscribe(connection, id, names) : this.unsubscribe(connection, id, names)
      }
      default:
        return this.reject(connection, id, invalidEvent(""))
    }
  }

  /** All named channels or none: the first bad name refuses the request. Snapshots follow the ack. */
  private subscribe(connection: Connection, id: RequestId, names: ReadonlyArray<string>): void {
    const market = connection.market === "contract" ? this.simulation.exchange.market : undefined
    const parsed = new Map<string, Channel>()
    for (const name of names) {
      const channel = parseChannel(name, connection.visibility, market, connection.market === "contract")
      if (typeof channel === "string") return this.reject(connection, id, channel)
      parsed.set(channel.key, channel.channel)
    }
    const added = [...parsed.keys()].filter((key) => !connection.subscriptions.has(key)).length
    if (connection.subscriptions.size + added > MAX_CHANNELS) {
      return this.reject(connection, id, `INVALID_ARGUMENT: too many channels : at most ${MAX_CHANNELS} per connection`)
    }
    const subscribed: Array<Subscription> = []
    for (const [key, channel] of parsed) {
      // subscribing again restarts the channel: a fresh snapshot, a new depth chain
      const subscription: Subscription = { channel, last: undefined, book: undefined, updateId: 0, trades: new Set() }
      connection.subscriptions.set(key, subscription)
      subscribed.push(subscription)
    }
    this.answer(connection, id)
    for (const subscription of subscribed) this.snapshot(connection, subscription)
  }

  private unsubscribe(connection: Connection, id: RequestId, names: ReadonlyArray<string>): void {
    const market = connection.market === "contract" ? this.simulation.exchange.market : undefined
    for (const name of names) {
      const channel = parseChannel(name, connection.visibility, market, connection.market === "contract")
      if (typeof channel !== "string") connection.subscriptions.delete(channel.key)
    }
    this.answer(connection, id)
  }

  /** What a public channel sends right after its ack; the ticker sends the figures it starts from. */
  private snapshot(connection: Connection, subscription: Subscription): void {
    const { channel } = subscription
    const market = this.simulation.exchange.market
    const now = this.simulation.now()
    switch (channel._tag) {
      case "ticker":
        return this.refreshTicker(connection, subscription, now)
      case "depth": {
        const book = bookOf(market, channel.instrument, channel.levels)
        const first = this.nextUpdateId++
        subscription.book = book
        subscription.updateId = (this.nextUpdateId += book.bids.size + book.asks.size)
        return this.push(connection, depthSnapshot(channel.instrument, channel.levels, book, first, subscription.updateId, now))
      }
      case "kline": {
        const candles = candlesOf(market, channel)
        subscription.last = JSON.stringify(candles[candles.length - 1])
        return this.push(connection, klineFrame(channel, true, candles, now))
      }
      case "trade": {
        const recent = recentTrades(market, channel.instrument)
        subscription.trades = new Set(recent.map((trade) => trade.id))
        return this.push(connection, tradesFrame(channel.instrument, true, recent.map((trade) => trade.element), now))
      }
      case "private":
        return
    }
  }

  private refreshTicker(connection: Connection, subscription: Subscription, now: number): void {
    if (subscription.channel._tag !== "ticker") return
    const ticker = tickerFigures(this.simulation.exchange.market, subscription.channel.instrument)
    if (ticker === undefined) return
    const figures = JSON.stringify(ticker.figures)
    if (figures === subscription.last) return
    subscription.last = figures
    this.push(connection, tickerFrame(subscription.channel.instrument, ticker.element, now))
  }

  private onEvent(event: ExchangeEvent): void {
    switch (event._tag) {
      case "MarketMoved":
        return this.marketMoved(event.symbol)
      case "OrderChanged":
        return this.orderChanged(event.order)
      case "Executed":
        return this.executed(event.trade, event.position)
      case "Funded":
        return this.funded(event.position)
      case "Releveraged":
        return this.releveraged(event.position)
    }
  }

  /** Tickers, depth diffs, candles and new market trades of the moved symbols (every symbol after a tick). */
  private marketMoved(symbol: string | undefined): void {
    const market = this.simulation.exchange.market
    const now = this.simulation.now()
    for (const connection of this.connections) {
      for (const subscription of connection.subscriptions.values()) {
        const { channel } = subscription
        if (channel._tag === "private" || (symbol !== undefined && channel.instrument.symbol !== symbol)) continue
        if (channel._tag === "ticker") this.refreshTicker(connection, subscription, now)
        else if (channel._tag === "depth" && subscription.book !== undefined) {
          const book = bookOf(market, channel.instrument, channel.levels)
          const first = this.skips.has(channel.instrument.symbol) ? subscription.updateId + 1 : subscription.updateId
          const last = Math.max(this.nextUpdateId, first) + 1
          const diff = depthDiff(channel.instrument, channel.levels, subscription.book, book, first, last, now)
          if (diff === undefined) continue
          this.nextUpdateId = last
          subscription.book = book
          subscription.updateId = last
          this.push(connection, diff)
        } else if (channel._tag === "kline") {
          const candle = candlesOf(market, channel, 1)
          const figures = JSON.stringify(candle[0])
          if (candle.length === 0 || figures === subscription.last) continue
          subscription.last = figures
          this.push(connection, klineFrame(channel, false, candle, now))
        } else if (channel._tag === "trade") {
          // a market trade is sent once, when REST first lists it (the minute still open grows after that)
          const recent = recentTrades(market, channel.instrument)
          const fresh = recent.filter((trade) => !subscription.trades.has(trade.id))
          subscription.trades = new Set(recent.map((trade) => trade.id))
          if (fresh.length > 0) this.push(connection, tradesFrame(channel.instrument, false, fresh.map((trade) => trade.element), now))
        }
      }
    }
    if (symbol === undefined) this.skips.clear()
    else this.skips.delete(symbol)
  }

  /** The `v` of the account's next push. */
  private version(uid: string): number {
    const next = (this.versions.get(uid) ?? 0) + 1
    this.versions.set(uid, next)
    return next
  }

  /** The account's private sockets subscribed to `name`. */
  private listeners(uid: string, name: PrivateChannel): ReadonlyArray<Connection> {
    return [...this.connections].filter((connection) =>
      connection.market === "contract" && connection.account?.uid === uid && connection.subscriptions.has(name))
  }

  /** One private push to the account's sockets on that channel; the record is built only when someone listens. */
  private pushPrivate(uid: string, name: PrivateChannel, record: () => object, msgEvent = "OrderUpdate"): void {
    const v = this.version(uid)
    const listeners = this.listeners(uid, name)
    if (listeners.length === 0) return
    const frame = { e: name, E: this.simulation.now(), v, msgEvent, d: [record()] }
    for (const connection of listeners) this.push(connection, frame)
  }

  /** A placement that rests or waits for its trigger, or a cancel: the order alone. */
  private orderChanged(order: Order): void {
    this.pushPrivate(order.uid, "orders", () => orderPush(order, this.simulation.exchange))
  }

  /** A leverage change: the re-margined position at its new leverage. */
  private releveraged(position: Position): void {
    this.pushPrivate(position.uid, "positions", () => positionPush(position, this.simulation.exchange.futures))
  }

  /** A funding settlement: the position and the account, as `PositionFundingSettle`. */
  private funded(position: Position): void {
    const { futures } = this.simulation.exchange
    this.pushPrivate(position.uid, "positions", () => positionPush(position, futures), "PositionFundingSettle")
    this.pushPrivate(position.uid, "account", () => accountPush(futures, position.uid), "PositionFundingSettle")
  }

  /** An execution: the public trade, then the account's order, fill, position and balance, in that order (§6.6). */
  private executed(trade: Trade, position: Position | undefined): void {
    const now = this.simulation.now()
    const { exchange } = this.simulation
    const { order } = trade
    for (const connection of this.connections) {
      for (const subscription of connection.subscriptions.values()) {
        const { channel } = subscription
        if (channel._tag === "trade" && channel.instrument === order.instrument) this.push(connection, tradeFrame(trade, now))
      }
    }
    this.pushPrivate(order.uid, "orders", () => orderPush(order, exchange))
    this.pushPrivate(order.uid, "fill", () => fillPush(trade))
    if (position !== undefined) this.pushPrivate(order.uid, "positions", () => positionPush(position, exchange.futures))
    this.pushPrivate(order.uid, "account", () => accountPush(exchange.futures, order.uid))
  }
}
