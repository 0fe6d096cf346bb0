/**
 * Account views: the balance (futures and spot), a market's leverage and a position's margin, with the confirmations
 * of their changes.
 */
import { AdjustMargin, BatchOrder, Decimal } from "@tradedesk/core"
import type { Asset, Contract, Leverage, Position } from "@tradedesk/core"
import { BigDecimal, Either, Option, Schema } from "effect"
import { bold, code, fmt, join, pre } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import { confirmRow } from "../../kernel/confirm/writes.js"
import { assets } from "../../kernel/exchange/symbols.js"
import { dec, marketName, money, oneLine, signedMoney, table, view } from "../../kernel/ui/view.js"
import type { View } from "../../kernel/ui/view.js"

// ── balance ─────────────────────────────────────────────────────────────────────────────────────────────────────────

export interface Balance {
  readonly futures: ReadonlyArray<Asset.FuturesAsset>
  /** the open positions, for the margin they hold */
  readonly positions: ReadonlyArray<Position.Position>
  readonly spot: ReadonlyArray<Asset.SpotAsset>
}

/** spot coins listed at most (those with a balance) */
const MAX_SPOT_COINS = 40

const zero = BigDecimal.make(0n, 0)

/** The margin the positions hold, by the exchange's figure for each (none for a position without one). */
const positionMargin = (positions: ReadonlyArray<Position.Position>): BigDecimal.BigDecimal =>
  BigDecimal.sumAll(positions.map((position) => Option.getOrElse(position.margin, () => zero)))

export const balanceView = (balance: Balance): View => {
  const futures = balance.futures.map((asset) => {
    const coin = oneLine(asset.coin, "name")
    return fmt`${bold(coin)}
${pre("")(table([
      ["Equity", money(asset.equity, asset.coin)],
      ["Available", money(asset.available, asset.coin)],
      ["In open orders", money(asset.frozen, asset.coin)],
      ["Unrealised PnL", signedMoney(asset.unrealizedPnl, asset.coin)]
    ], "lr"))}`
  })
  const margin = positionMargin(balance.positions)
  // the positions' margin is in the futures account's coin
  const marginIn = balance.futures[0]?.coin ?? "USDT"
  const held = balance.spot.filter((asset) => !BigDecimal.isZero(asset.equity))
  const spotRows = [["COIN", "AVAILABLE", "FROZEN", "TOTAL"], ...held.slice(0, MAX_SPOT_COINS).map((asset) => [
    oneLine(asset.coin, "name"),
    money(asset.available, asset.coin),
    money(asset.frozen, asset.coin),
    money(asset.equity, asset.coin)
  ])]
  const more = held.length > MAX_SPOT_COINS ? `\n…and ${held.length - MAX_SPOT_COINS} more coins.` : ""
  return view(
    fmt`${bold("Futures account")}
${futures.length === 0 ? fmt`No futures balance.` : join(futures, "\n")}
Margin in ${balance.positions.length === 1 ? "1 position" : `${balance.positions.length} positions`}: ${code(money(margin, marginIn))}

${bold("Spot assets")}
${held.length === 0 ? fmt`No spot balance.` : fmt`${pre("")(table(spotRows, "lrrr"))}${more}`}`,
    [[{ label: "⟳ Refresh", data: { _tag: "Balance" } }]]
  )
}

// ── leverage ────────────────────────────────────────────────────────────────────────────────────────────────────────

/** A market's leverage as the account has it. */
export interface LeverageReading {
  readonly symbol: string
  readonly marginMode: BatchOrder.MarginMode
  /** none when the exchange lists no setting for the market */
  readonly setting: Leverage.LeverageSetting | undefined
  readonly contract: Contract.Contract
}

/** A leverage change waiting for Confirm: the margin mode first when it changes, then the leverage. */
export const LeverageWrite = Schema.Struct({
  symbol: Schema.String,
  from: Schema.typeSchema(BatchOrder.MarginModeFromCode),
  marginMode: Schema.typeSchema(BatchOrder.MarginModeFromCode),
  leverage: Schema.UndefinedOr(Schema.Number)
})
export interface LeverageWrite extends Schema.Schema.Type<typeof LeverageWrite> {}

/** The leverage in force in the mode: cross has one; isolated one per side. */
const inForce = (reading: LeverageReading): string => {
  const { setting } = reading
  if (setting === undefined) return "the exchange's default"
  if (reading.marginMode === "cross") return `${dec(BigDecimal.normalize(setting.cross))}x`
  const long = BigDecimal.normalize(setting.isolatedLong)
  const short = BigDecimal.normalize(setting.isolatedShort)
  return BigDecimal.equals(long, short) ? `${dec(long)}x` : `long ${dec(long)}x, short ${dec(short)}x`
}

const bounds = (contract: Contract.Contract) => `${contract.minLeverage}x–${contract.maxLeverage}x`

export const leverageView = (reading: LeverageReading, note?: FmtString): View =>
  view(fmt`${note === undefined ? "" : fmt`${note}\n\n`}${bold(`${marketName(reading.symbol)} leverage`)}
Margin mode ${code(reading.marginMode)} · leverage ${code(inForce(reading))}
Allowed ${bounds(reading.contract)}. Change it with e.g. ${code(`/leverage ${marketName(reading.symbol).toLowerCase()} 10`)} or add ${code("cross")} or ${code("isolated")}.`)

/** A market the trader's limits (BOT_SYMBOLS) keep them from: said so; undefined when they may trade it. */
export const notTradableView = (symbol: string, limits: TradingLimits.TraderLimits | undefined): View | undefined => {
  const symbols = limits?.symbols
  return symbols === undefined || symbols.value.has(symbol)
    ? undefined
    : view(fmt`${marketName(symbol)} is not among the markets you may trade: ${TradingLimits.symbolsText(symbols.value)} (${symbols.setting}); nothing was changed.`)
}

/**
 * Why the asked change cannot be made; undefined when it can. `limits`: the trader's, which may keep them from the
 * market (BOT_SYMBOLS) or from a leverage above their cap (BOT_MAX_LEVERAGE).
 */
export const leverageRefusal = (
  reading: LeverageReading,
  leverage: number | undefined,
  marginMode: BatchOrder.MarginMode | undefined,
  limits?: TradingLimits.TraderLimits
): View | undefined => {
  const { contract, setting } = reading
  const notTradable = notTradableView(reading.symbol, limits)
  if (notTradable !== undefined) return notTradable
  const cap = limits?.maxLeverage
  if (leverage !== undefined && cap !== undefined && leverage > cap.value) {
    return view(fmt`Leverage ${leverage}x is over your limit of ${cap.value}x (${cap.setting}); nothing was changed. Try e.g. ${
      code(`/leverage ${marketName(reading.symbol).toLowerCase()} ${Math.min(cap.value, contract.maxLeverage)}`)
    }.`)
  }
  // a switch of mode alone trades at the leverage that mode already has
  const kept = setting === undefined || marginMode === undefined || marginMode === reading.marginMode
    ? undefined
    : Number(BigDecimal.format(BigDecimal.normalize(marginMode === "cross" ? setting.cross : BigDecimal.max(setting.isolatedLong, setting.isolatedShort))))
  if (leverage === undefined && marginMode !== undefined && kept !== undefined && cap !== undefined && kept > cap.value) {
    return view(fmt`Switching ${marketName(reading.symbol)} to ${marginMode} margin would trade at its ${kept}x, over your limit of ${cap.value}x (${cap.setting}); nothing was changed. Set the leverage with it, e.g. ${
      code(`/leverage ${marketName(reading.symbol).toLowerCase()} ${marginMode} ${Math.min(cap.value, contract.maxLeverage)}`)
    }.`)
  }
  if (leverage === undefined || (leverage >= contract.minLeverage && leverage <= contract.maxLeverage)) return undefined
  return view(fmt`Leverage ${leverage}x is outside ${marketName(reading.symbol)}'s ${bounds(contract)}; nothing was changed. Try e.g. ${
    code(`/leverage ${marketName(reading.symbol).toLowerCase()} ${leverage > contract.maxLeverage ? contract.maxLeverage : contract.minLeverage}`)
  }.`)
}

const describeChange = (write: LeverageWrite): string =>
  [
    write.marginMode === write.from ? undefined : `switch to ${write.marginMode} margin`,
    write.leverage === undefined ? undefined : `set ${write.leverage}x leverage${write.marginMode === "isolated" ? " on both sides" : ""}`
  ].filter((part) => part !== undefined).join(" and ")

export const leverageAskView = (reading: LeverageReading, write: LeverageWrite, id: string): View =>
  view(
    fmt`${bold(`${marketName(write.symbol)}: ${describeChange(write)}?`)}
Now: ${reading.marginMode} margin, ${inForce(reading)}.${write.marginMode === write.from ? "" : " The margin mode cannot change while the market has an open position."}`,
    [confirmRow("leverage", id, "Change")]
  )

export const unchangedView = (reading: LeverageReading): View => leverageView(reading, fmt`Nothing to change: that is the setting already.`)

export const changedNote = (write: LeverageWrite): FmtString => fmt`✅ Done: ${describeChange(write)} on ${marketName(write.symbol)}.`

/** The margin mode changed but the leverage did not: said so, and the failure's reason. */
export const halfChangedNote = (write: LeverageWrite, reason: FmtString): FmtString =>
  fmt`⚠️ Switched ${marketName(write.symbol)} to ${write.marginMode} margin, but the leverage was not set: ${reason}`

/** The margin mode changed between the question and its Confirm: the change asked for no longer means the same. */
export const modeMovedNote = (write: LeverageWrite, now: BatchOrder.MarginMode): FmtString =>
  fmt`⚠️ Nothing was changed: ${marketName(write.symbol)} was ${write.from} margin when you asked, and is ${now} margin now (changed meanwhile). The setting in force is below; send the ${code("/leverage")} again to change it.`

export const checkLeverage = (symbol: string): FmtString => fmt`${code(`/leverage ${marketName(symbol).toLowerCase()}`)} shows the setting now.`

export const leverageAgain = (): FmtString => fmt`Send the ${code("/leverage")} again to change it.`

// ── margin ──────────────────────────────────────────────────────────────────────────────────────────────────────────

/** A margin change waiting for Confirm: sent to the position it was asked for, while that position is still isolated. */
export const MarginWrite = Schema.Struct({
  symbol: Schema.String,
  side: Schema.Literal("long", "short"),
  /** the exchange's id of the position, which the change names */
  positionId: Schema.String,
  direction: AdjustMargin.MarginDirection,
  amount: Decimal.DecimalFromString
})
export interface MarginWrite extends Schema.Schema.Type<typeof MarginWrite> {}

/** `cmt_btcusdt` → `USDT`: the coin a position's margin is in. */
const marginCoin = (symbol: string) => oneLine(assets(symbol).quote, "name")

/** The amount a trader typed, exact: what they confirm is what is sent. */
const amountText = (write: Pick<MarginWrite, "symbol" | "amount">) => `${dec(write.amount)} ${marginCoin(write.symbol)}`.trim()

/** A position's margin as the account shows it, in its coin. */
const marginText = (value: BigDecimal.BigDecimal, symbol: string) => `${money(value, marginCoin(symbol))} ${marginCoin(symbol)}`.trim()

const positionName = (symbol: string, side: MarginWrite["side"]) => `${marketName(symbol)} ${side}`

/** What a trader types to change the position's margin, for hints. */
const marginCommand = (symbol: string, side: MarginWrite["side"] | undefined, direction: AdjustMargin.MarginDirection = "add") =>
  `/margin ${direction} ${marketName(symbol).toLowerCase()}${side === undefined ? "" : ` ${side}`} 10`

/**
 * The open position the change is for, out of the market's open positions (`held`): the only one, or the one on
 * `side`; else why none can be chosen.
 */
export const pickPosition = (
  symbol: string,
  held: ReadonlyArray<Position.Position>,
  side: MarginWrite["side"] | undefined,
  direction: AdjustMargin.MarginDirection
): Either.Either<Position.Position, View> => {
  const candidates = side === undefined ? held : held.filter((position) => position.side === side)
  const [only, ...more] = candidates
  if (only === undefined) {
    const none = side === undefined ? `no open position on ${marketName(symbol)}` : `no open ${side} position on ${marketName(symbol)}`
    return Either.left(view(fmt`There is ${none}; margin can be changed only on an open isolated position. ${code("/positions")} lists yours.`))
  }
  if (more.length === 0) return Either.right(only)
  return Either.left(
    side === undefined && candidates.some((position) => position.side !== only.side)
      ? view(fmt`${marketName(symbol)} has a long and a short position: name one, e.g. ${code(marginCommand(symbol, "long", direction))}.`)
      : view(fmt`${marketName(symbol)} has ${candidates.length} ${side ?? only.side} positions (separated mode), and the bot cannot tell which one you mean; change their margin on the exchange.`)
  )
}

/** Why the change cannot be made to this position (not isolated, or more taken out than it holds); undefined when it can. */
export const marginRefusal = (position: Position.Position, write: Pick<MarginWrite, "symbol" | "direction" | "amount">): View | undefined => {
  if (position.marginMode !== "isolated") {
    return view(fmt`Margin can be changed only on isolated positions: the ${positionName(write.symbol, position.side)} position is cross margin, where the whole balance backs it. Nothing was changed.`)
  }
  if (write.direction === "reduce" && BigDecimal.greaterThanOrEqualTo(write.amount, position.isolatedMargin)) {
    // exact: the trader reduces by less than this, to the last digit
    return view(fmt`The ${positionName(write.symbol, position.side)} position holds ${code(`${dec(position.isolatedMargin)} ${marginCoin(write.symbol)}`.trim())} of margin: less than that can be taken out, never all of it. Nothing was changed.`)
  }
  return undefined
}

const liquidation = (position: Position.Position): string | undefined =>
  Option.match(position.liquidationPrice, {
    onNone: () => undefined,
    onSome: (price) => (BigDecimal.isZero(price) ? undefined : dec(price))
  })

const after = (position: Position.Position, write: MarginWrite) =>
  write.direction === "add" ? BigDecimal.sum(position.isolatedMargin, write.amount) : BigDecimal.subtract(position.isolatedMargin, write.amount)

/** Exact, as the change is: taking out 0.005 must show a change. */
export const marginAskView = (position: Position.Position, write: MarginWrite, id: string): View => {
  const coin = marginCoin(write.symbol)
  const price = liquidation(position)
  const moves = write.direction === "add" ? "further from the price" : "closer to the price"
  return view(
    fmt`${bold(`${positionName(write.symbol, write.side)}: ${write.direction === "add" ? "add" : "take out"} ${amountText(write)} of margin?`)}
Position: ${dec(position.size)} at ${dec(BigDecimal.normalize(position.leverage))}x, isolated margin.
Margin now ${code(dec(position.isolatedMargin))} ${coin}, after ${code(dec(after(position, write)))} ${coin}.${
      price === undefined ? "" : `
Liquidation price now ${price}; it moves ${moves}.`
    }`,
    [confirmRow("margin", id, write.direction === "add" ? "Add margin" : "Reduce margin")]
  )
}

/** The position after a change (or a Back): its margin now; `position` none when it is gone. */
export const marginView = (write: MarginWrite, position: Position.Position | undefined, note?: FmtString): View => {
  const head = note === undefined ? fmt`` : fmt`${note}

`
  if (position === undefined) return view(fmt`${head}There is no ${positionName(write.symbol, write.side)} position now.`)
  const price = liquidation(position)
  return view(fmt`${head}${bold(`${positionName(write.symbol, position.side)} position`)}
Size ${dec(position.size)} · ${position.marginMode} margin ${code(marginText(position.isolatedMargin, write.symbol))}${
    price === undefined ? "" : ` · liquidation ${price}`
  }
Change it with e.g. ${code(marginCommand(write.symbol, write.side))}.`)
}

export const marginChangedNote = (write: MarginWrite): FmtString =>
  write.direction === "add"
    ? fmt`✅ Done: added ${amountText(write)} of margin to the ${positionName(write.symbol, write.side)} position.`
    : fmt`✅ Done: took ${amountText(write)} of margin out of the ${positionName(write.symbol, write.side)} position.`

/** The position asked for is gone (closed, or reopened as another) at Confirm. */
export const positionGoneNote = (write: MarginWrite): FmtString =>
  fmt`⚠️ Nothing was changed: the ${positionName(write.symbol, write.side)} position you asked about is no longer open (closed or replaced since). Send the ${code("/margin")} again for the position there is now.`

export const checkMargin = (): FmtString => fmt`${code("/positions")} shows the positions' margin now.`

export const marginAgain = (): FmtString => fmt`Send the ${code("/margin")} again to change it.`
