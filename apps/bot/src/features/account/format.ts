/** Account views: the balance (futures and spot) and a market's leverage, with the leverage change's confirmation. */
import { BatchOrder } from "@tradedesk/core"
import type { Asset, Contract, Leverage, Position } from "@tradedesk/core"
import { BigDecimal, Option, Schema } from "effect"
import { bold, code, fmt, join, pre } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import * as TradingLimits from "../../kernel/TradingLimits.js"
import { confirmRow } from "../../kernel/writes.js"
import { dec, grouped, marketName, oneLine, signed, table, view } from "../../kernel/view.js"
import type { View } from "../../kernel/view.js"

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
      ["Equity", grouped(asset.equity)],
      ["Available", grouped(asset.available)],
      ["In open orders", grouped(asset.frozen)],
      ["Unrealised PnL", signed(asset.unrealizedPnl)]
    ], "lr"))}`
  })
  const margin = positionMargin(balance.positions)
  const held = balance.spot.filter((asset) => !BigDecimal.isZero(asset.equity))
  const spotRows = [["COIN", "AVAILABLE", "FROZEN", "TOTAL"], ...held.slice(0, MAX_SPOT_COINS).map((asset) => [
    oneLine(asset.coin, "name"),
    grouped(asset.available),
    grouped(asset.frozen),
    grouped(asset.equity)
  ])]
  const more = held.length > MAX_SPOT_COINS ? `\n…and ${held.length - MAX_SPOT_COINS} more coins.` : ""
  return view(
    fmt`${bold("Futures account")}
${futures.length === 0 ? fmt`No futures balance.` : join(futures, "\n")}
Margin in ${balance.positions.length === 1 ? "1 position" : `${balance.positions.length} positions`}: ${code(dec(margin))}

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
  const symbols = limits?.symbols
  if (symbols !== undefined && !symbols.value.has(reading.symbol)) {
    return view(fmt`${marketName(reading.symbol)} is not among the markets you may trade: ${TradingLimits.symbolsText(symbols.value)} (${symbols.setting}); nothing was changed.`)
  }
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
