/**
 * The exchange's demo trading (docs/v3.md "Demo trading"): four V3 endpoints under `/capi/v3/sim/` on the futures
 * host — balance, positions, one order per request, order history — over a demo account of each account's own
 * (funded with DEMO_CASH SUSDT when the simulator starts), on the same market as everything else: the demo trades at
 * live prices. Its names are the live demo's both ways: contracts as `BTCSUSDT` (the base, then `SUSDT`), the asset
 * `SUSDT`. The history's `symbol` filter takes V3's `BTCUSDT` and refuses `BTCSUSDT`, as the live demo was seen to.
 * The demo has nothing else: no cancel, algo orders, batches, fills, leverage, margin or bills.
 */
import type { Answer, Call } from "../call.js"
import type { Failure } from "../failures.js"
import { isFailure } from "../failures.js"
import type { Futures } from "../Futures.js"
import { AMOUNT_SCALE } from "../Ledger.js"
import type { DemoAccount } from "../types.js"
import { invalidSymbol } from "./params.js"
import type { TradingV3 } from "./trading.js"

/** What each demo account holds at start, in SUSDT (the live demo's grant is not documented). */
export const DEMO_CASH = 10_000n

/** The demo account of an account: its own orders, positions and cash; the id never leaves the simulator. */
const demoAccountOf = (account: DemoAccount): DemoAccount => ({ ...account, uid: `demo-${account.uid}` })

/** V3's name of a demo contract (`BTCSUSDT` → `BTCUSDT`); none for another name. */
const v3SymbolOf = (demoSymbol: string): string | undefined =>
  /^[A-Z0-9]{2,30}SUSDT$/.test(demoSymbol) ? `${demoSymbol.slice(0, -5)}USDT` : undefined

/**
 * A V3 answer in the demo's names: `"symbol":"BTCUSDT"` as `"symbol":"BTCSUSDT"`, `"asset":"USDT"` as `"SUSDT"`. The
 * text is the simulator's own compact JSON (json.ts), whose keys and symbol values are written exactly so.
 */
const inDemoNames = (answer: Answer): Answer =>
  isFailure(answer)
    ? answer
    : answer.replace(/"symbol":"([A-Z0-9]+)USDT"/g, `"symbol":"$1SUSDT"`).replace(/"asset":"USDT"/g, `"asset":"SUSDT"`)

/**
 * An order body with its demo symbol in V3's name, for V3's placement to read; a symbol in another form is refused
 * as the exchange refuses an unknown one. A body that is not a JSON object with a string `symbol` goes on as it is,
 * for V3's placement to refuse in its words.
 */
const withV3Symbol = (body: string): string | Failure => {
  let fields: unknown
  try {
    fields = JSON.parse(body)
  } catch {
    return body
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields) || !("symbol" in fields) || typeof fields.symbol !== "string") return body
  const symbol = v3SymbolOf(fields.symbol)
  // an order body has no ids, so parsing and writing it again changes none of its values
  return symbol === undefined ? invalidSymbol() : JSON.stringify({ ...fields, symbol })
}

export class DemoV3 {
  constructor(private readonly trading: TradingV3, futures: Futures, accounts: ReadonlyArray<DemoAccount>, now: number) {
    for (const account of accounts) futures.transferIn(demoAccountOf(account).uid, DEMO_CASH * 10n ** BigInt(AMOUNT_SCALE), now)
  }

  /** `GET /capi/v3/sim/balance`: one SUSDT item. */
  balance(call: Call, account: DemoAccount): Answer {
    return inDemoNames(this.trading.balance(call, demoAccountOf(account)))
  }

  /** `GET /capi/v3/sim/position/allPosition` */
  positions(call: Call, account: DemoAccount): Answer {
    return inDemoNames(this.trading.positions(call, demoAccountOf(account)))
  }

  /** `POST /capi/v3/sim/order`: V3's order fields, the symbol as `BTCSUSDT`. */
  placeOrder(call: Call, account: DemoAccount): Answer {
    const body = withV3Symbol(call.body)
    return isFailure(body) ? body : inDemoNames(this.trading.placeOrder({ ...call, body }, demoAccountOf(account)))
  }

  /** `GET /capi/v3/sim/order/history`: V3's query, its `symbol` in V3's name (`BTCSUSDT` is an unknown symbol there). */
  orderHistory(call: Call, account: DemoAccount): Answer {
    return inDemoNames(this.trading.orderHistory(call, demoAccountOf(account)))
  }
}
