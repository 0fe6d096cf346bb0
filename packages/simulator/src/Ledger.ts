/**
 * The spot ledger: each account's bills in time order with a running balance per coin. Amounts are integers of
 * 10^-8 coin units, so every `afterAmount` is exactly the previous one plus `deltaAmount`.
 */
import { BigDecimal, DateTime } from "effect"
import type { SpotBill } from "@tradedesk/core"
import type { Instrument } from "./instruments.js"
import { decimal, trimmed } from "./units.js"

/** Scale of ledger amounts. */
export const AMOUNT_SCALE = 8

export interface Coin {
  readonly id: number
  readonly name: string
}

export interface Bill {
  readonly billId: string
  readonly coin: Coin
  readonly bizType: SpotBill.BizType
  readonly fillSize: BigDecimal.BigDecimal
  readonly fillValue: BigDecimal.BigDecimal
  /** 10^-8 units */
  readonly delta: bigint
  /** 10^-8 units */
  readonly after: bigint
  readonly fees: BigDecimal.BigDecimal
  readonly time: number
}

export interface Posting {
  readonly coin: Coin
  readonly bizType: SpotBill.BizType
  readonly delta: bigint
  readonly fillSize?: BigDecimal.BigDecimal
  readonly fillValue?: BigDecimal.BigDecimal
  readonly fees?: BigDecimal.BigDecimal
  readonly time: number
}

export interface BillFilter {
  readonly coinId?: number
  readonly bizType?: string
  /** inclusive */
  readonly after?: number
  /** inclusive */
  readonly before?: number
  readonly limit: number
}

interface Book {
  readonly bills: Array<Bill>
  readonly balances: Map<number, bigint>
}

const ZERO = BigDecimal.make(0n, 0)

/** Coin ids: BTC 1 and USDT 2 as in the exchange's samples, then every listed base coin in order. */
export class Coins {
  readonly usdt: Coin = { id: 2, name: "USDT" }
  private readonly byName = new Map<string, Coin>([["USDT", this.usdt]])
  private readonly byId = new Map<number, Coin>([[this.usdt.id, this.usdt]])

  constructor(instruments: ReadonlyArray<Instrument>) {
    let next = 3
    for (const { base } of instruments) {
      if (this.byName.has(base)) continue
      const coin = { id: base === "BTC" ? 1 : next++, name: base }
      this.byName.set(base, coin)
      this.byId.set(coin.id, coin)
    }
  }

  of(name: string): Coin | undefined {
    return this.byName.get(name)
  }

  withId(id: number): Coin | undefined {
    return this.byId.get(id)
  }
}

/** A fill: `quantity` of `coin` bought or sold for `value` USDT plus or minus `fee` USDT (all 10^-8 units). */
export interface Trade {
  readonly coin: Coin
  readonly side: "buy" | "sell"
  readonly quantity: bigint
  /** the quantity as the order had it */
  readonly fillSize: BigDecimal.BigDecimal
  readonly value: bigint
  readonly fee: bigint
  readonly time: number
}

export class Ledger {
  private readonly books = new Map<string, Book>()
  private nextId = 1_034_120_303_420_870_000n

  constructor(readonly coins: Coins) {}

  private book(uid: string): Book {
    let book = this.books.get(uid)
    if (book === undefined) {
      book = { bills: [], balances: new Map() }
      this.books.set(uid, book)
    }
    return book
  }

  balance(uid: string, coin: Coin): bigint {
    return this.book(uid).balances.get(coin.id) ?? 0n
  }

  /** Coins the account holds a positive amount of. */
  holdings(uid: string): ReadonlyArray<number> {
    return Array.from(this.book(uid).balances).filter(([, amount]) => amount > 0n).map(([id]) => id)
  }

  /** Appends a bill; a clock that went back does not reorder the ledger (the bill keeps the latest time). */
  post(uid: string, posting: Posting): Bill {
    const book = this.book(uid)
    const previous = book.bills[book.bills.length - 1]
    const after = (book.balances.get(posting.coin.id) ?? 0n) + posting.delta
    book.balances.set(posting.coin.id, after)
    const bill: Bill = {
      billId: String(this.nextId++),
      coin: posting.coin,
      bizType: posting.bizType,
      fillSize: posting.fillSize ?? ZERO,
      fillValue: posting.fillValue ?? ZERO,
      delta: posting.delta,
      after,
      fees: posting.fees ?? ZERO,
      time: Math.max(posting.time, previous?.time ?? 0)
    }
    book.bills.push(bill)
    return bill
  }

  /** Whether the account holds what the trade takes: the USDT value and fee of a buy, the coin of a sell. */
  covers(uid: string, trade: Trade): boolean {
    return trade.side === "buy" ? this.balance(uid, this.coins.usdt) >= trade.value + trade.fee : this.balance(uid, trade.coin) >= trade.quantity
  }

  /** A trade as two bills: the coin in (or out), and its USDT value out (or in) with the fee. */
  trade(uid: string, trade: Trade): void {
    const details = { fillSize: trade.fillSize, fillValue: trimmed(trade.value, AMOUNT_SCALE), time: trade.time }
    const fees = trimmed(trade.fee, AMOUNT_SCALE)
    const usdt = this.coins.usdt
    if (trade.side === "buy") {
      this.post(uid, { coin: trade.coin, bizType: "trade_in", delta: trade.quantity, ...details })
      this.post(uid, { coin: usdt, bizType: "trade_out", delta: -(trade.value + trade.fee), fees, ...details })
    } else {
      this.post(uid, { coin: trade.coin, bizType: "trade_out", delta: -trade.quantity, ...details })
      this.post(uid, { coin: usdt, bizType: "trade_in", delta: trade.value - trade.fee, fees, ...details })
    }
  }

  /** Matching bills, newest first. */
  query(uid: string, filter: BillFilter): ReadonlyArray<SpotBill.SpotBill> {
    const { bills } = this.book(uid)
    const out: Array<SpotBill.SpotBill> = []
    for (let i = bills.length - 1; i >= 0 && out.length < filter.limit; i--) {
      const bill = bills[i]!
      if (filter.before !== undefined && bill.time > filter.before) continue
      if (filter.after !== undefined && bill.time < filter.after) break
      if (filter.coinId !== undefined && bill.coin.id !== filter.coinId) continue
      if (filter.bizType !== undefined && bill.bizType !== filter.bizType) continue
      out.push(toDomain(bill))
    }
    return out
  }
}

const toDomain = (bill: Bill): SpotBill.SpotBill => ({
  billId: bill.billId,
  coinId: bill.coin.id,
  coinName: bill.coin.name,
  bizType: bill.bizType,
  fillSize: bill.fillSize,
  fillValue: bill.fillValue,
  deltaAmount: decimal(bill.delta, AMOUNT_SCALE),
  afterAmount: decimal(bill.after, AMOUNT_SCALE),
  fees: bill.fees,
  createdAt: DateTime.unsafeMake(bill.time)
})
