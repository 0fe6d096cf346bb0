/**
 * An account's own ledger activity beside its futures fills: deposits, withdrawals, transfers, spot trades and, for an
 * agent, fee income. Seeds sixty days of history and adds an event now and then while the simulator runs.
 */
import type { SpotBill } from "@tradedesk/core"
import type { Coin, Ledger } from "./Ledger.js"
import { AMOUNT_SCALE } from "./Ledger.js"
import type { Market } from "./Market.js"
import type { Prng } from "./Prng.js"
import { divide, trimmed } from "./units.js"

export interface Activity {
  readonly uid: string
  readonly agent: boolean
  readonly prng: Prng
  readonly ledger: Ledger
  readonly market: Market
}

const HOUR = 3_600_000
const DAY = 24 * HOUR
const HISTORY_DAYS = 60
/** chance per live tick that an account does something on its own */
const EVENT_CHANCE = 1 / 30
const MAJORS = ["BTC", "ETH", "SOL", "BNB", "XRP", "DOGE"]
/** the spot fee of a trade, 0.1 % of its value (also what V3's spot exchangeInfo publishes) */
export const SPOT_FEE_BPS = 10n
const CENT = 10n ** BigInt(AMOUNT_SCALE - 2)
const UNIT = 100n * CENT
/** what an account holds at least when the simulator starts: USDT, and the worth of each major coin in USDT */
const START_USDT = 50_000n
const START_COIN_WORTH = 10_000n

/** A coin's last price: ticks and their decimals. */
const priceOf = (activity: Activity, coin: Coin) => {
  const instrument = activity.market.instrument(`cmt_${coin.name.toLowerCase()}usdt`)
  const quote = instrument && activity.market.quote(instrument.symbol)
  return instrument && quote ? { units: BigInt(quote.last), decimals: instrument.priceDecimals } : undefined
}

const cents = (activity: Activity, min: number, max: number) => BigInt(activity.prng.int(min * 100, max * 100)) * CENT

const post = (activity: Activity, bizType: SpotBill.BizType, coin: Coin, delta: bigint, time: number) =>
  activity.ledger.post(activity.uid, { coin, bizType, delta, time })

const randomMajor = (activity: Activity): Coin | undefined => activity.ledger.coins.of(activity.prng.pick(MAJORS))

const randomHolding = (activity: Activity, withoutUsdt: boolean): Coin | undefined => {
  const held = activity.ledger.holdings(activity.uid).filter((id) => !withoutUsdt || id !== activity.ledger.coins.usdt.id)
  if (held.length === 0) return undefined
  return activity.ledger.coins.withId(activity.prng.pick(held))
}

const trade = (activity: Activity, side: "buy" | "sell", coin: Coin, quantity: bigint, time: number) => {
  const price = priceOf(activity, coin)
  if (price === undefined || quantity <= 0n) return
  const value = divide(quantity * price.units, 10n ** BigInt(price.decimals))
  const fee = divide(value * SPOT_FEE_BPS, 10_000n)
  activity.ledger.trade(activity.uid, { coin, side, quantity, fillSize: trimmed(quantity, AMOUNT_SCALE), value, fee, time })
}

/** A share of the balance, in whole cents for USDT. */
const share = (activity: Activity, coin: Coin, minPercent: number, maxPercent: number) => {
  const amount = (activity.ledger.balance(activity.uid, coin) * BigInt(activity.prng.int(minPercent, maxPercent))) / 100n
  return coin.id === activity.ledger.coins.usdt.id ? (amount / CENT) * CENT : amount
}

/** One event at `time`; an event that the balances cannot pay for is skipped. */
const randomEvent = (activity: Activity, time: number): void => {
  const { prng } = activity
  const { coins } = activity.ledger
  if (activity.agent && prng.chance(0.2)) {
    if (prng.chance(0.1)) post(activity, "order_liquidate_fee_income", coins.usdt, cents(activity, 1, 200), time)
    else post(activity, "order_fill_fee_income", coins.usdt, cents(activity, 0.5, 80), time)
    return
  }
  const roll = prng.next()
  if (roll < 0.2) {
    const coin = prng.chance(0.6) ? coins.usdt : randomMajor(activity)
    if (coin === undefined) return
    const price = priceOf(activity, coin)
    if (coin === coins.usdt) {
      post(activity, "deposit", coin, cents(activity, 200, 20_000), time)
    } else if (price !== undefined) {
      const value = cents(activity, 200, 10_000)
      post(activity, "deposit", coin, divide(value * 10n ** BigInt(price.decimals), price.units), time)
    }
  } else if (roll < 0.3) {
    const coin = randomHolding(activity, false)
    const amount = coin && share(activity, coin, 10, 40)
    if (coin && amount) post(activity, "withdraw", coin, -amount, time)
  } else if (roll < 0.4) {
    post(activity, "transfer_in", coins.usdt, cents(activity, 100, 5000), time)
  } else if (roll < 0.55) {
    const amount = share(activity, coins.usdt, 10, 30)
    if (amount > 0n) post(activity, "transfer_out", coins.usdt, -amount, time)
  } else if (roll < 0.8) {
    const coin = randomMajor(activity)
    const price = coin && priceOf(activity, coin)
    const budget = share(activity, coins.usdt, 5, 25)
    if (coin && price && budget > 0n) {
      // the fee comes on top of the value: keep both within the balance
      const value = divide(budget * 10_000n, 10_000n + SPOT_FEE_BPS)
      trade(activity, "buy", coin, divide(value * 10n ** BigInt(price.decimals), price.units), time)
    }
  } else {
    const coin = randomHolding(activity, true)
    if (coin) trade(activity, "sell", coin, share(activity, coin, 20, 100), time)
  }
}

/**
 * Deposits at `now` that bring the account up to START_USDT and START_COIN_WORTH of each major coin: whatever the
 * seeded history spent, demo orders of usual sizes (buys, and sells of the coin) can be paid for.
 */
const topUp = (activity: Activity, now: number): void => {
  const { coins } = activity.ledger
  const missing = (coin: Coin, floor: bigint) => floor - activity.ledger.balance(activity.uid, coin)
  const usdt = missing(coins.usdt, START_USDT * UNIT)
  // whole cents, rounded up
  if (usdt > 0n) post(activity, "deposit", coins.usdt, ((usdt + CENT - 1n) / CENT) * CENT, now)
  for (const name of MAJORS) {
    const coin = coins.of(name)
    const price = coin && priceOf(activity, coin)
    if (coin === undefined || price === undefined) continue
    const amount = missing(coin, divide(START_COIN_WORTH * UNIT * 10n ** BigInt(price.decimals), price.units))
    if (amount > 0n) post(activity, "deposit", coin, amount, now)
  }
}

/** Sixty days of history up to `now`, starting with a USDT deposit and ending with the top-up. */
export const seedHistory = (activity: Activity, now: number): void => {
  let time = now - HISTORY_DAYS * DAY
  post(activity, "deposit", activity.ledger.coins.usdt, activity.agent ? 50_000n * UNIT : 20_000n * UNIT, time)
  for (;;) {
    time += activity.prng.int(HOUR, 8 * HOUR)
    if (time >= now) return topUp(activity, now)
    randomEvent(activity, time)
  }
}

/** Called once per live tick. */
export const maybeEvent = (activity: Activity, now: number): void => {
  if (activity.prng.chance(EVENT_CHANCE)) randomEvent(activity, now)
}
