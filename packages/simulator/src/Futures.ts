/**
 * The futures side of every account, apart from its spot assets and spot bills: a USDT margin account, positions per
 * symbol, side and margin mode (hedge mode: a long and a short may be held at once; an order carries its margin mode,
 * by default the symbol's), leverage and margin mode per symbol, and the futures bills. Amounts are integers of 10^-8 USDT; a position's value is kept exactly, in 10^-(price + size
 * decimals) USDT, so the average entry price is `openValue / size` without rounding.
 *
 * The model (see the README):
 * - **cash** is the wallet balance: deposits, minus fees, plus realised PnL and funding. It never goes below zero
 *   (a loss beyond it is absorbed, as an exchange's insurance fund would).
 * - a position's **margin** is its entry value / leverage; **frozen** is the margin and taker fee reserved for resting
 *   orders that open positions; **unrealised PnL** is valued at the mark price.
 * - equity = cash + unrealised PnL; available = cash + the unrealised loss − margins − frozen (at least zero).
 * - **liquidation**: an isolated position is liquidated when its margin plus its unrealised PnL falls to its
 *   maintenance margin (0.5 % of its value at the mark price), and loses at most its margin; the cross positions of an
 *   account are all liquidated when cash − isolated margins + their unrealised PnL falls to their maintenance margin.
 * - **funding** settles every 8 h of simulated time (00:00, 08:00, 16:00 UTC) on every position at the mark price:
 *   rate = 0.01 % + (mark − index) / index, capped at ±0.075 %; longs pay it to shorts when positive.
 */
import { AMOUNT_SCALE } from "./Ledger.js"
import type { Instrument } from "./instruments.js"
import type { Market } from "./Market.js"
import { DEFAULT_LEVERAGE, MAINTENANCE_MARGIN_BPS, MIN_LEVERAGE } from "./contracts.js"
import { divide, rescale } from "./units.js"

export type Side = "long" | "short"
export type MarginMode = "cross" | "isolated"

export type BusinessType =
  | "transfer_in"
  | "position_open_long"
  | "position_open_short"
  | "position_close_long"
  | "position_close_short"
  | "position_funding"
  | "finish_liquidate"

export interface Settings {
  readonly marginMode: MarginMode
  readonly crossLeverage: number
  readonly isolatedLongLeverage: number
  readonly isolatedShortLeverage: number
}

export interface Position {
  readonly id: bigint
  readonly uid: string
  readonly instrument: Instrument
  readonly side: Side
  readonly marginMode: MarginMode
  leverage: number
  sizeUnits: number
  /** Σ size × entry price of the open size, in 10^-(priceDecimals + sizeDecimals) USDT */
  openValue: bigint
  margin: bigint
  /** the opening fees of the open size */
  openFee: bigint
  /** funding received (negative: paid) since the position opened */
  fundingFee: bigint
  cumOpenUnits: number
  cumOpenValue: bigint
  cumOpenFee: bigint
  cumCloseUnits: number
  cumCloseValue: bigint
  cumCloseFee: bigint
  cumLiquidateFee: bigint
  readonly createdAt: number
  updatedAt: number
  /** the matching engine's sequence number of the fill that opened it, and of the last fill on it */
  readonly createdSequence: bigint
  updatedSequence: bigint
}

/** What the futures side tells the exchange's observers (ExchangeEvents.ts): an open position now at another leverage (and margin). */
export type FuturesEvent = { readonly _tag: "Releveraged"; readonly position: Position }

/** Why a margin move was refused: no such position of the account, a cross one, or more than may move. */
export interface MarginMoveRefusal {
  readonly reason: "no position" | "not isolated" | "not enough"
  readonly message: string
}

export interface Bill {
  readonly billId: bigint
  readonly symbol: string
  readonly businessType: BusinessType
  readonly amount: bigint
  /** cash after the bill */
  readonly balance: bigint
  readonly fillFee: bigint
  readonly time: number
}

export interface BillFilter {
  readonly symbol?: string
  readonly businessType?: string
  /** inclusive */
  readonly startTime?: number
  /** inclusive */
  readonly endTime?: number
  /** only bills with a smaller id (V3's income cursor) */
  readonly beforeId?: bigint
  readonly limit: number
}

/** Running totals of an account, as `getAccounts` shows them. */
export interface Totals {
  transferIn: bigint
  openLong: bigint
  openShort: bigint
  closeLong: bigint
  closeShort: bigint
  fillFee: bigint
  liquidateFee: bigint
  funding: bigint
}

interface Account {
  cash: bigint
  frozen: bigint
  readonly positions: Map<string, Position>
  readonly settings: Map<string, Settings>
  bills: Array<Bill>
  readonly totals: Totals
  readonly createdAt: number
  updatedAt: number
}

/** One fill against a position: opening adds to it, closing takes from it (at most its size). */
export interface Fill {
  readonly instrument: Instrument
  readonly side: Side
  readonly marginMode: MarginMode
  readonly opens: boolean
  readonly units: number
  readonly priceUnits: number
  readonly feeBps: bigint
  readonly time: number
  readonly liquidation: boolean
}

export interface Applied {
  /** size steps actually filled: a close takes at most the position's size */
  readonly units: number
  readonly fee: bigint
  readonly realised: bigint
  readonly marginMode: MarginMode
  /** the position after the fill (size 0 once closed); none when nothing was filled */
  readonly position: Position | undefined
}

export interface Summary {
  readonly cash: bigint
  readonly frozen: bigint
  readonly margin: bigint
  readonly unrealised: bigint
  readonly equity: bigint
  readonly available: bigint
}

const FUNDING_INTERVAL_MS = 8 * 3_600_000
const BASE_FUNDING_PPM = 100n
const MAX_PREMIUM_PPM = 750n
const BILL_MEMORY = 10_000
const DEFAULT_SETTINGS: Settings = {
  marginMode: "cross",
  crossLeverage: DEFAULT_LEVERAGE,
  isolatedLongLeverage: DEFAULT_LEVERAGE,
  isolatedShortLeverage: DEFAULT_LEVERAGE
}

/** The leverage of a position of one side in one margin mode. */
export const leverageOf = (settings: Settings, marginMode: MarginMode, side: Side): number =>
  marginMode === "cross" ? settings.crossLeverage : side === "long" ? settings.isolatedLongLeverage : settings.isolatedShortLeverage

const valueScale = (instrument: Instrument) => instrument.priceDecimals + instrument.sizeDecimals

/** 10^-8 USDT of a value in 10^-(price + size decimals) USDT. */
export const toUsdt = (value: bigint, instrument: Instrument): bigint => rescale(value, valueScale(instrument), AMOUNT_SCALE)

const nextFundingAfter = (time: number) => (Math.floor(time / FUNDING_INTERVAL_MS) + 1) * FUNDING_INTERVAL_MS

const keyOf = (symbol: string, side: Side, marginMode: MarginMode) => `${symbol}/${side}/${marginMode}`

export class Futures {
  private readonly accounts = new Map<string, Account>()
  private nextBillId = 686_960_019_383_517_338n
  private nextPositionId = 690_800_371_848_708_186n
  /** one number per fill, counting up, like the exchange's match sequence */
  private matchSequence = 5_792_711_540n
  private nextFunding: number

  /** `emit`: where a leverage change that re-margined a position is told */
  constructor(private readonly market: Market, now: number, private readonly emit: (event: FuturesEvent) => void = () => {}) {
    this.nextFunding = nextFundingAfter(now)
  }

  private account(uid: string): Account {
    let account = this.accounts.get(uid)
    if (account === undefined) {
      account = {
        cash: 0n,
        frozen: 0n,
        positions: new Map(),
        settings: new Map(),
        bills: [],
        totals: { transferIn: 0n, openLong: 0n, openShort: 0n, closeLong: 0n, closeShort: 0n, fillFee: 0n, liquidateFee: 0n, funding: 0n },
        createdAt: this.market.time,
        updatedAt: this.market.time
      }
      this.accounts.set(uid, account)
    }
    return account
  }

  /** Cash in from the account's spot side. */
  transferIn(uid: string, amount: bigint, time: number): void {
    const account = this.account(uid)
    account.totals.transferIn += amount
    this.post(account, "", "transfer_in", amount, 0n, time)
  }

  settings(uid: string, symbol: string): Settings {
    return this.account(uid).settings.get(symbol) ?? DEFAULT_SETTINGS
  }

  /** Symbols whose settings the account changed, then those where it holds a position. */
  symbolsInUse(uid: string): ReadonlyArray<string> {
    const account = this.account(uid)
    const symbols = new Set(account.settings.keys())
    for (const position of account.positions.values()) symbols.add(position.instrument.symbol)
    return [...symbols]
  }

  /**
   * `account/leverage`: `marginMode` must be the symbol's current mode, cross needs one leverage for both sides, each
   * within the contract's bounds; open positions are re-margined at the new leverage, which must leave the available
   * balance at zero or more. Answers why not, or undefined when done.
   */
  setLeverage(uid: string, instrument: Instrument, marginMode: MarginMode, long: number, short: number, time: number): string | undefined {
    const current = this.settings(uid, instrument.symbol)
    if (marginMode !== current.marginMode) return `marginMode must be the symbol's current mode (${current.marginMode})`
    if (marginMode === "cross" && long !== short) return "in cross mode longLeverage and shortLeverage must be equal"
    for (const leverage of [long, short]) {
      if (!Number.isInteger(leverage) || leverage < MIN_LEVERAGE || leverage > instrument.maxLeverage) {
        return `leverage must be a whole number from ${MIN_LEVERAGE} to ${instrument.maxLeverage}, got ${leverage}`
      }
    }
    const next: Settings = marginMode === "cross"
      ? { ...current, crossLeverage: long }
      : { ...current, isolatedLongLeverage: long, isolatedShortLeverage: short }
    const account = this.account(uid)
    const before = [...account.positions.values()]
      .filter((position) => position.instrument.symbol === instrument.symbol && position.marginMode === marginMode)
      .map((position) => ({ position, leverage: position.leverage, margin: position.margin }))
    for (const { position } of before) {
      position.leverage = leverageOf(next, marginMode, position.side)
      position.margin = divide(toUsdt(position.openValue, instrument), BigInt(position.leverage))
    }
    if (before.length > 0 && this.free(account) < 0n) {
      for (const { position, leverage, margin } of before) Object.assign(position, { leverage, margin })
      return "failed to change leverage: the positions' margin at this leverage exceeds the available balance"
    }
    account.settings.set(instrument.symbol, next)
    account.updatedAt = time
    for (const { position, leverage } of before) {
      if (position.leverage === leverage) continue
      position.updatedAt = time
      this.emit({ _tag: "Releveraged", position })
    }
    return undefined
  }

  /** `changeHoldModel`: refused while the symbol has a position (open orders are checked by the caller). */
  setMarginMode(uid: string, symbol: string, marginMode: MarginMode, time: number): string | undefined {
    const account = this.account(uid)
    if (this.positionsOf(uid, symbol).length > 0) return `the margin mode cannot change while ${symbol} has an open position`
    account.settings.set(symbol, { ...this.settings(uid, symbol), marginMode })
    account.updatedAt = time
    return undefined
  }

  /**
   * `adjustMargin` (V2) and `positionMargin` (V3): moves `amount` (10^-8 USDT, above zero) from the available balance
   * into an isolated position, or back out of it while it keeps the margin its size needs at its leverage after its
   * unrealised loss (it could not be opened with less). A cross position has no margin of its own to move. Answers why
   * not, or undefined when done.
   */
  adjustMargin(uid: string, positionId: string, direction: "add" | "reduce", amount: bigint, time: number): MarginMoveRefusal | undefined {
    const account = this.account(uid)
    const position = [...account.positions.values()].find((candidate) => candidate.id.toString() === positionId)
    if (position === undefined) return { reason: "no position", message: `the account has no position ${positionId}` }
    if (position.marginMode !== "isolated") {
      return { reason: "not isolated", message: `position ${positionId} is cross: only an isolated position's margin can be adjusted` }
    }
    if (direction === "add") {
      if (amount > this.free(account)) return { reason: "not enough", message: "Move margin available amount not enough" }
      position.margin += amount
    } else {
      const unrealised = this.unrealised(position)
      const needed = divide(toUsdt(position.openValue, position.instrument), BigInt(position.leverage))
      const movable = position.margin + (unrealised < 0n ? unrealised : 0n) - needed
      if (amount > movable) return { reason: "not enough", message: "Move margin available amount not enough" }
      position.margin -= amount
    }
    position.updatedAt = time
    account.updatedAt = time
    return undefined
  }

  position(uid: string, symbol: string, side: Side, marginMode: MarginMode): Position | undefined {
    return this.account(uid).positions.get(keyOf(symbol, side, marginMode))
  }

  /** The account's positions (of one symbol), oldest first. */
  positionsOf(uid: string, symbol?: string): ReadonlyArray<Position> {
    const all = [...this.account(uid).positions.values()]
    return symbol === undefined ? all : all.filter((position) => position.instrument.symbol === symbol)
  }

  /** Changes the margin reserved for the account's resting orders. */
  freeze(uid: string, delta: bigint): void {
    this.account(uid).frozen += delta
  }

  /** A fill: the position grows or shrinks, the fee (and on a close the realised PnL) is booked in a bill. */
  apply(uid: string, fill: Fill): Applied {
    const account = this.account(uid)
    const { instrument, side } = fill
    const key = keyOf(instrument.symbol, side, fill.marginMode)
    const existing = account.positions.get(key)
    const units = fill.opens ? fill.units : Math.min(fill.units, existing?.sizeUnits ?? 0)
    const value = BigInt(units) * BigInt(fill.priceUnits)
    const usdt = toUsdt(value, instrument)
    const sequence = ++this.matchSequence
    const fee = divide(usdt * fill.feeBps, 10_000n)
    account.totals.fillFee += fee
    if (fill.opens) {
      const position = existing ?? this.openPosition(account, uid, instrument, side, fill.marginMode, fill.time, sequence)
      position.sizeUnits += units
      position.openValue += value
      position.margin += divide(usdt, BigInt(position.leverage))
      position.openFee += fee
      position.cumOpenUnits += units
      position.cumOpenValue += usdt
      position.cumOpenFee += fee
      position.updatedAt = fill.time
      position.updatedSequence = sequence
      if (side === "long") account.totals.openLong += usdt
      else account.totals.openShort += usdt
      this.post(account, instrument.symbol, side === "long" ? "position_open_long" : "position_open_short", -fee, fee, fill.time)
      return { units, fee, realised: 0n, marginMode: position.marginMode, position }
    }
    if (existing === undefined || units === 0) return { units: 0, fee: 0n, realised: 0n, marginMode: fill.marginMode, position: undefined }
    const share = (amount: bigint) => divide(amount * BigInt(units), BigInt(existing.sizeUnits))
    const entryValue = share(existing.openValue)
    const margin = share(existing.margin)
    let realised = toUsdt(side === "long" ? value - entryValue : entryValue - value, instrument)
    // an isolated position loses at most its margin
    if (fill.liquidation && existing.marginMode === "isolated" && realised < -margin) realised = -margin
    existing.openFee -= share(existing.openFee)
    existing.sizeUnits -= units
    existing.openValue -= entryValue
    existing.margin -= margin
    existing.cumCloseUnits += units
    existing.cumCloseValue += usdt
    existing.cumCloseFee += fee
    if (fill.liquidation) {
      existing.cumLiquidateFee += fee
      account.totals.liquidateFee += fee
    }
    existing.updatedAt = fill.time
    existing.updatedSequence = sequence
    if (existing.sizeUnits === 0) account.positions.delete(key)
    if (side === "long") account.totals.closeLong += usdt
    else account.totals.closeShort += usdt
    const businessType = fill.liquidation ? "finish_liquidate" : side === "long" ? "position_close_long" : "position_close_short"
    this.post(account, instrument.symbol, businessType, realised - fee, fee, fill.time)
    return { units, fee, realised, marginMode: existing.marginMode, position: existing }
  }

  /** Unrealised PnL of a position at the mark price, in 10^-8 USDT. */
  unrealised(position: Position): bigint {
    const mark = BigInt(this.market.quote(position.instrument.symbol)?.mark ?? 0)
    const atMark = BigInt(position.sizeUnits) * mark
    return toUsdt(position.side === "long" ? atMark - position.openValue : position.openValue - atMark, position.instrument)
  }

  summary(uid: string): Summary {
    const account = this.account(uid)
    const { margin, unrealised } = this.exposure(account)
    const free = this.free(account)
    return { cash: account.cash, frozen: account.frozen, margin, unrealised, equity: account.cash + unrealised, available: free > 0n ? free : 0n }
  }

  private exposure(account: Account): { readonly margin: bigint; readonly unrealised: bigint } {
    let margin = 0n
    let unrealised = 0n
    for (const position of account.positions.values()) {
      margin += position.margin
      unrealised += this.unrealised(position)
    }
    return { margin, unrealised }
  }

  /** cash + the unrealised loss − margins − frozen; negative when the account is short of margin */
  private free(account: Account): bigint {
    const { margin, unrealised } = this.exposure(account)
    return account.cash + (unrealised < 0n ? unrealised : 0n) - margin - account.frozen
  }

  totals(uid: string): Readonly<Totals> & { readonly createdAt: number; readonly updatedAt: number } {
    const account = this.account(uid)
    return { ...account.totals, createdAt: account.createdAt, updatedAt: account.updatedAt }
  }

  /**
   * The mark price (in ticks) at which the position would be liquidated, or 0 when none is in reach. For a cross
   * position the available balance counts as its margin too, so the estimate holds while it is the only one.
   */
  liquidationPrice(position: Position): number {
    // a closed position (pushed once with size 0) has none
    if (position.sizeUnits === 0) return 0
    const { instrument } = position
    const cover = position.marginMode === "isolated" ? position.margin : position.margin + this.summary(position.uid).available
    const coverValue = rescale(cover, AMOUNT_SCALE, valueScale(instrument))
    const size = BigInt(position.sizeUnits) * 10_000n
    const price = position.side === "long"
      ? ((position.openValue - coverValue) * 10_000n) / (size - BigInt(position.sizeUnits) * MAINTENANCE_MARGIN_BPS)
      : ((position.openValue + coverValue) * 10_000n) / (size + BigInt(position.sizeUnits) * MAINTENANCE_MARGIN_BPS)
    return price > 0n ? Number(price) : 0
  }

  /** Positions past the liquidation rule at the present mark prices. */
  dueForLiquidation(): ReadonlyArray<Position> {
    const due: Array<Position> = []
    for (const account of this.accounts.values()) {
      let crossEquity = account.cash
      let crossMaintenance = 0n
      const cross: Array<Position> = []
      for (const position of account.positions.values()) {
        const unrealised = this.unrealised(position)
        const maintenance = divide(this.valueAtMark(position) * MAINTENANCE_MARGIN_BPS, 10_000n)
        if (position.marginMode === "isolated") {
          crossEquity -= position.margin
          if (position.margin + unrealised <= maintenance) due.push(position)
        } else {
          crossEquity += unrealised
          crossMaintenance += maintenance
          cross.push(position)
        }
      }
      if (cross.length > 0 && crossEquity <= crossMaintenance) due.push(...cross)
    }
    return due
  }

  /**
   * Settles funding on every position once the simulated clock passes a funding time (missed ones are not repeated);
   * answers the positions it settled.
   */
  fund(now: number): ReadonlyArray<Position> {
    if (now < this.nextFunding) return []
    this.nextFunding = nextFundingAfter(now)
    const funded: Array<Position> = []
    for (const account of this.accounts.values()) {
      for (const position of account.positions.values()) {
        const quote = this.market.quote(position.instrument.symbol)
        if (quote === undefined) continue
        const premium = divide(BigInt(quote.mark - quote.index) * 1_000_000n, BigInt(Math.max(1, quote.index)))
        const capped = premium > MAX_PREMIUM_PPM ? MAX_PREMIUM_PPM : premium < -MAX_PREMIUM_PPM ? -MAX_PREMIUM_PPM : premium
        const paid = divide(this.valueAtMark(position) * (BASE_FUNDING_PPM + capped), 1_000_000n)
        const received = position.side === "long" ? -paid : paid
        const booked = this.post(account, position.instrument.symbol, "position_funding", received, 0n, now)
        position.fundingFee += booked
        account.totals.funding += booked
        funded.push(position)
      }
    }
    return funded
  }

  /** Matching bills, newest first, and whether more match. */
  bills(uid: string, filter: BillFilter): { readonly items: ReadonlyArray<Bill>; readonly more: boolean } {
    const { bills } = this.account(uid)
    const items: Array<Bill> = []
    for (let i = bills.length - 1; i >= 0; i--) {
      const bill = bills[i]!
      if (filter.endTime !== undefined && bill.time > filter.endTime) continue
      if (filter.beforeId !== undefined && bill.billId >= filter.beforeId) continue
      if (filter.startTime !== undefined && bill.time < filter.startTime) break
      if (filter.symbol !== undefined && bill.symbol !== filter.symbol) continue
      if (filter.businessType !== undefined && bill.businessType !== filter.businessType) continue
      if (items.length === filter.limit) return { items, more: true }
      items.push(bill)
    }
    return { items, more: false }
  }

  private valueAtMark(position: Position): bigint {
    const mark = this.market.quote(position.instrument.symbol)?.mark ?? 0
    return toUsdt(BigInt(position.sizeUnits) * BigInt(mark), position.instrument)
  }

  private openPosition(account: Account, uid: string, instrument: Instrument, side: Side, marginMode: MarginMode, time: number, sequence: bigint): Position {
    const position: Position = {
      id: this.nextPositionId++,
      uid,
      instrument,
      side,
      marginMode,
      leverage: leverageOf(this.settings(uid, instrument.symbol), marginMode, side),
      sizeUnits: 0,
      openValue: 0n,
      margin: 0n,
      openFee: 0n,
      fundingFee: 0n,
      cumOpenUnits: 0,
      cumOpenValue: 0n,
      cumOpenFee: 0n,
      cumCloseUnits: 0,
      cumCloseValue: 0n,
      cumCloseFee: 0n,
      cumLiquidateFee: 0n,
      createdAt: time,
      updatedAt: time,
      createdSequence: sequence,
      updatedSequence: sequence
    }
    account.positions.set(keyOf(instrument.symbol, side, marginMode), position)
    return position
  }

  /** Books `amount` (at most what the cash holds, when negative); answers the amount booked. */
  private post(account: Account, symbol: string, businessType: BusinessType, amount: bigint, fillFee: bigint, time: number): bigint {
    const booked = amount < -account.cash ? -account.cash : amount
    account.cash += booked
    account.updatedAt = time
    const previous = account.bills[account.bills.length - 1]
    account.bills.push({
      billId: this.nextBillId++,
      symbol,
      businessType,
      amount: booked,
      balance: account.cash,
      fillFee,
      time: Math.max(time, previous?.time ?? 0)
    })
    // trimmed in batches, so a bill costs O(1) on average
    if (account.bills.length >= 2 * BILL_MEMORY) account.bills = account.bills.slice(-BILL_MEMORY)
    return booked
  }
}
