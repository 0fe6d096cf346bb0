/**
 * The futures contracts the market lists: well-known coins with realistic prices and tick sizes, then a seeded long
 * tail of made-up coins. Prices and sizes are integers in tick and size-step units, so the market never rounds a float.
 */
import { Prng } from "./Prng.js"

export interface Instrument {
  /** e.g. `cmt_btcusdt` */
  readonly symbol: string
  /** the base coin, upper case, e.g. `BTC` */
  readonly base: string
  /** the tick is 10^-priceDecimals */
  readonly priceDecimals: number
  /** the size step is 10^-sizeDecimals */
  readonly sizeDecimals: number
  /** reference price in ticks; the random walk drifts back towards it */
  readonly anchorUnits: number
  /** spread between best bid and best ask, in ticks */
  readonly spreadTicks: number
  /** standard deviation of one live tick's return */
  readonly volatility: number
  /** typical 24 h volume, in size steps */
  readonly dailyBaseUnits: number
  /** in size steps: about 5 USDT at the reference price */
  readonly minSizeUnits: number
  /** in size steps: about two million USDT at the reference price */
  readonly maxSizeUnits: number
  /** some pairs have no mark and index price, as on the exchange */
  readonly hasMarkPrice: boolean
  /** the exchange's numeric id of the contract (`contract_id` of positions): 10000001 for the first listed */
  readonly contractId: number
  /** highest leverage allowed (the lowest is 1): 100 for the ten largest coins, 50 for the other known ones, 20 for the tail */
  readonly maxLeverage: number
}

/** base, reference price (its decimals are the tick), size decimals, typical 24 h volume in millions of USDT */
const KNOWN: ReadonlyArray<readonly [string, string, number, number]> = [
  ["BTC", "65000.0", 3, 2000], ["ETH", "3500.00", 2, 1000], ["SOL", "150.000", 1, 400], ["BNB", "580.00", 2, 120],
  ["XRP", "0.5200", 0, 150], ["DOGE", "0.16000", 0, 180], ["ADA", "0.4500", 0, 60], ["TRX", "0.12000", 0, 30],
  ["AVAX", "35.000", 1, 50], ["LINK", "14.500", 1, 45], ["DOT", "7.200", 1, 30], ["MATIC", "0.7000", 0, 25],
  ["TON", "6.800", 1, 40], ["SHIB", "0.00002400", 0, 35], ["LTC", "82.00", 2, 30], ["BCH", "470.00", 2, 25],
  ["UNI", "9.800", 1, 20], ["ATOM", "8.600", 1, 18], ["XLM", "0.11000", 0, 8], ["ETC", "27.000", 1, 15],
  ["NEAR", "6.500", 1, 30], ["APT", "9.000", 1, 22], ["FIL", "6.000", 1, 15], ["ARB", "1.1000", 0, 35],
  ["OP", "2.5000", 1, 30], ["INJ", "28.000", 1, 25], ["SUI", "1.0500", 0, 40], ["PEPE", "0.0000115000", 0, 90],
  ["WLD", "5.000", 1, 45], ["AAVE", "95.00", 2, 15], ["MKR", "2800.0", 3, 8], ["SEI", "0.5500", 0, 15],
  ["TIA", "10.000", 1, 20], ["RENDER", "10.000", 1, 18], ["IMX", "2.2000", 0, 8], ["STX", "2.0000", 0, 9],
  ["HBAR", "0.10000", 0, 10], ["ALGO", "0.18000", 0, 6], ["VET", "0.035000", 0, 5], ["GRT", "0.30000", 0, 6],
  ["SAND", "0.4500", 0, 7], ["MANA", "0.4500", 0, 5], ["AXS", "7.500", 1, 5], ["FTM", "0.7000", 0, 20],
  ["CRV", "0.4500", 0, 9], ["LDO", "2.0000", 0, 10], ["DYDX", "2.0000", 0, 8], ["GALA", "0.040000", 0, 9],
  ["APE", "1.2000", 0, 7], ["EOS", "0.8000", 0, 6], ["XTZ", "0.9500", 0, 3], ["THETA", "2.0000", 0, 3],
  ["CHZ", "0.11000", 0, 4], ["KAS", "0.12000", 0, 8], ["FLOKI", "0.00018000", 0, 20], ["BONK", "0.0000250000", 0, 25],
  ["WIF", "2.5000", 0, 60], ["ORDI", "40.000", 2, 20], ["JUP", "1.1000", 0, 12], ["ENA", "0.8000", 0, 25],
  ["PYTH", "0.4500", 0, 6], ["1INCH", "0.4000", 0, 3]
]

const CONSONANTS = "bcdfghjklmnprstvxz"
const VOWELS = "aeiou"

const decimalsOf = (price: string) => {
  const dot = price.indexOf(".")
  return dot < 0 ? 0 : price.length - dot - 1
}

const make = (
  base: string,
  anchorUnits: number,
  priceDecimals: number,
  sizeDecimals: number,
  dailyQuote: number,
  spreadTicks: number,
  volatility: number,
  hasMarkPrice: boolean,
  index: number,
  maxLeverage: number
): Instrument => {
  const price = anchorUnits / 10 ** priceDecimals
  const steps = 10 ** sizeDecimals
  return {
    symbol: `cmt_${base.toLowerCase()}usdt`,
    base,
    priceDecimals,
    sizeDecimals,
    anchorUnits,
    spreadTicks,
    volatility,
    dailyBaseUnits: Math.max(1000, Math.round((dailyQuote / price) * steps)),
    minSizeUnits: Math.max(1, Math.ceil((5 / price) * steps)),
    maxSizeUnits: Math.max(1000, Math.round((2_000_000 / price) * steps)),
    hasMarkPrice,
    contractId: 10_000_001 + index,
    maxLeverage
  }
}

const tailName = (prng: Prng): string => {
  let name = ""
  const syllables = prng.int(2, 3)
  for (let i = 0; i < syllables; i++) name += prng.pick([...CONSONANTS]) + prng.pick([...VOWELS])
  if (prng.chance(0.4)) name += prng.pick([...CONSONANTS])
  return name.toUpperCase()
}

/** `count` instruments for a seed: the known coins first, then the long tail. */
export const instruments = (seed: number, count: number): ReadonlyArray<Instrument> => {
  const prng = Prng.derive(seed, "instruments")
  const list: Array<Instrument> = []
  for (const [base, price, sizeDecimals, millions] of KNOWN.slice(0, count)) {
    const priceDecimals = decimalsOf(price)
    const anchorUnits = Number(price.replace(".", ""))
    const maxLeverage = list.length < 10 ? 100 : 50
    list.push(make(base, anchorUnits, priceDecimals, sizeDecimals, millions * 1_000_000, 1, prng.int(8, 20) / 100_000, true, list.length, maxLeverage))
  }
  const taken = new Set(list.map((instrument) => instrument.base))
  while (list.length < count) {
    const base = tailName(prng)
    if (taken.has(base)) continue
    taken.add(base)
    // five significant digits between 0.000010000 and 999.99
    const priceDecimals = prng.int(2, 9)
    const anchorUnits = prng.int(10_000, 99_999)
    const price = anchorUnits / 10 ** priceDecimals
    const sizeDecimals = price < 1 ? 0 : price < 100 ? 1 : 2
    list.push(
      make(base, anchorUnits, priceDecimals, sizeDecimals, prng.int(50, 5000) * 1000, prng.int(1, 4), prng.int(15, 50) / 100_000, !prng.chance(0.1), list.length, 20)
    )
  }
  return list
}
