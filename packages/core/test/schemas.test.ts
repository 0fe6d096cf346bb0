import { Arbitrary, BigDecimal, DateTime, Either, FastCheck as fc, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as AffiliateUserStats from "../src/affiliate/AffiliateUserStats.js"
import * as BatchOrder from "../src/orders/BatchOrder.js"
import * as Decimal from "../src/Decimal.js"
import * as PlanOrder from "../src/orders/PlanOrder.js"
import * as SpotBill from "../src/account/SpotBill.js"
import * as Ticker from "../src/market/Ticker.js"
import * as V3Account from "../src/v3/account.js"
import * as OrderWrites from "../src/v3/orderWrites.js"
import { plainCodec, toPlain } from "../src/internal/plainRecord.js"
import { DEFAULT_LIMITS, INVALID } from "../src/internal/wireRecord.js"
import { fixture } from "./loopback.js"

const decimal = (text: string) => Decimal.parse(text)!

describe("Decimal", () => {
  it("keeps the scale the exchange sent", () => {
    for (const text of ["0", "65000.10", "-0.00100", "12", "-3.5", "0.000000001"]) {
      expect(Decimal.format(decimal(text))).toBe(text)
    }
  })

  it("is exact where a float is not", () => {
    const sum = BigDecimal.sum(decimal("0.1"), decimal("0.2"))
    expect(BigDecimal.equals(sum, decimal("0.3"))).toBe(true)
  })

  it("a parsed decimal is a full BigDecimal, its digits own data", () => {
    const price = decimal("65000.10")
    expect(BigDecimal.isBigDecimal(price)).toBe(true)
    expect(price.scale).toBe(2)
    expect(price.value).toBe(6500010n)
    expect(Object.getOwnPropertyDescriptor(price, "value")?.value).toBe(6500010n)
    expect(BigDecimal.format(BigDecimal.multiply(price, decimal("2")))).toBe("130000.2")
    expect(BigDecimal.equals(decimal("-0.50"), BigDecimal.make(-5n, 1))).toBe(true)
    expect(BigDecimal.lessThan(decimal("-3.5"), decimal("0.01"))).toBe(true)
  })

  it("reads exponent forms and refuses what is not a number", () => {
    expect(BigDecimal.equals(decimal("1E-8"), decimal("0.00000001"))).toBe(true)
    for (const bad of ["", "abc", "1.2.3", "NaN", " 1", "1,5", "-", ".5", "5.", "-.5", "1e", "--1"]) expect(Decimal.parse(bad)).toBeUndefined()
  })

  it("round-trips any plain decimal string", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), (digits, scale) => {
        const text = Decimal.format(BigDecimal.make(digits, scale))
        expect(Decimal.format(decimal(text))).toBe(text)
      })
    )
  })
})

describe("decoding the fixtures", () => {
  it("tickers: decimals exact, time in UTC, mark/index optional, unknown fields ignored", async () => {
    const result = Ticker.TickerList.decode(JSON.parse(await fixture("tickers.json")))
    const [btc, eth] = Either.getOrThrow(result)
    expect(btc!.symbol).toBe("cmt_btcusdt")
    expect(Decimal.format(btc!.bestBid)).toBe("65001.0")
    expect(DateTime.toEpochMillis(btc!.timestamp)).toBe(1716710918113)
    expect(Option.map(btc!.markPrice, Decimal.format)).toEqual(Option.some("65000.80"))
    expect(Decimal.format(eth!.priceChangeRatio)).toBe("-0.0061")
    expect(Option.isNone(eth!.markPrice)).toBe(true)
    expect(eth).not.toHaveProperty("somethingNew")
  })

  it("plan orders: named codes, empty price and trigger time, extra nulls tolerated", async () => {
    const [resting, filled] = Either.getOrThrow(PlanOrder.PlanOrderList.decode(JSON.parse(await fixture("currentPlan.json"))))
    expect(resting).toMatchObject({ type: "open_long", execution: "normal", status: "pending", triggerPriceType: "LIMIT" })
    expect(Option.isNone(resting!.priceAvg)).toBe(true)
    expect(Option.isNone(resting!.triggeredAt)).toBe(true)
    expect(filled).toMatchObject({ type: "close_short", execution: "ioc", status: "filled", triggerPriceType: "" })
    expect(Option.isNone(filled!.price)).toBe(true)
    expect(Option.map(filled!.totalProfits, Decimal.format)).toEqual(Option.some("-12.5"))
  })

  it("batch results: per-order outcome with the exchange's code verbatim", async () => {
    const response = Either.getOrThrow(BatchOrder.BatchOrdersResult.decode(JSON.parse(await fixture("batchOrders.json"))))
    expect(response.accepted).toBe(true)
    expect(response.orders.map((order) => [order.clientOid, order.accepted, order.errorCode])).toEqual([
      ["tdk-a1", true, ""],
      ["tdk-a2", false, "43008"]
    ])
  })

  it("spot bills and affiliate pages (the envelope's data)", async () => {
    const bills = Either.getOrThrow(SpotBill.SpotBillList.decode(JSON.parse(await fixture("bills.json")).data))
    expect(bills.map((bill) => [bill.bizType, bill.coinId, Decimal.format(bill.deltaAmount)])).toEqual([
      ["deposit", 2, "1000.00000000"],
      ["trade_out", 1, "-0.01"]
    ])
    const page = Either.getOrThrow(AffiliateUserStats.AffiliatePageResult.decode(JSON.parse(await fixture("affiliate.json")).data))
    expect(page).toMatchObject({ pages: 3, pageSize: 2, total: 5 })
    expect(Decimal.format(page.records[0]!.commission)).toBe("84.33")
  })

  it("names the field at fault when a record is malformed", () => {
    const result = Ticker.TickerList.decode([{ symbol: "cmt_btcusdt", best_ask: 1 }])
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(result.left.message).toContain("best_ask")
  })
})

const schemas = {
  ticker: Ticker.Ticker,
  planOrder: PlanOrder.PlanOrder,
  orderResult: BatchOrder.OrderResult,
  spotBill: SpotBill.SpotBill,
  affiliatePage: AffiliateUserStats.AffiliatePage
} as const

const codecs = {
  tickers: Ticker.TickerList,
  planOrders: PlanOrder.PlanOrderList,
  spotBills: SpotBill.SpotBillList,
  batchOrders: BatchOrder.BatchOrdersResult,
  affiliatePage: AffiliateUserStats.AffiliatePageResult,
  // V3: whole numbers and times as numbers or digits, a list bare or in `orderList`
  spotBillsV3: V3Account.spotBills.response,
  cancelOrdersV3: OrderWrites.cancelChunk.response
} as const

/** Strings that sit on the edges of the decimal and time rules. */
const EDGE_STRINGS = [
  "", "0", "-0", "1.", ".5", "-", "1e5", "1E-8", "1e999", "00012.50", "9007199254740993", "8640000000000000", "8640000000000001",
  "9999999999999999", "12345678901234567", " 1", "NaN",
  // the longest decimal the default limits accept, and one character more
  `0.${"1".repeat(98)}`, `0.${"1".repeat(99)}`
]

describe("schema round trips", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`${name}: encoding a domain value and decoding it gives it back; the wire form is exact`, () => {
      const s = schema as Schema.Schema<unknown, unknown>
      const encode = Schema.encodeSync(s)
      const decode = Schema.decodeUnknownSync(s)
      fc.assert(
        fc.property(Arbitrary.make(s), (value) => {
          const wire = encode(value)
          expect(decode(wire)).toEqual(value)
          expect(encode(decode(JSON.parse(JSON.stringify(wire))))).toEqual(wire)
        }),
        { numRuns: 200 }
      )
    })
  }

  for (const [name, codec] of Object.entries(codecs)) {
    it(`${name}: the fast and plain decoders accept exactly what the schema accepts, with the same values`, () => {
      const { schema, fast } = codec as { schema: Schema.Schema<unknown, unknown>; fast: (wire: unknown, limits: typeof DEFAULT_LIMITS) => unknown }
      const decode = Schema.decodeUnknownEither(schema)
      const encode = Schema.encodeSync(schema)
      // random wire values (mostly refused), encoded domain values (valid), and valid ones with one field set to an edge string
      const edged = Arbitrary.make(schema).map(encode).chain((wire) =>
        fc.tuple(fc.constantFrom(...EDGE_STRINGS), fc.nat()).map(([edge, at]) => {
          const records = Array.isArray(wire) ? wire : [wire]
          const record = records[0] as Record<string, unknown> | undefined
          if (record === undefined) return wire
          const keys = Object.keys(record)
          const key = keys[at % keys.length]!
          return Array.isArray(wire) ? [{ ...record, [key]: edge }, ...records.slice(1)] : { ...record, [key]: edge }
        })
      )
      const wires = fc.oneof(Arbitrary.make(Schema.encodedSchema(schema)), Arbitrary.make(schema).map(encode), edged)
      // the facade's plain decoder (hand-written for the tickers) likewise, giving the schema's value made plain
      const plainFast = plainCodec(codec as Parameters<typeof plainCodec>[0]).fast
      const agrees = (wire: unknown) => {
        const value = fast(wire, DEFAULT_LIMITS)
        const plain = plainFast(wire, DEFAULT_LIMITS)
        const full = decode(wire)
        expect(value !== INVALID).toBe(Either.isRight(full))
        expect(plain !== INVALID).toBe(Either.isRight(full))
        if (Either.isRight(full)) {
          expect(value).toEqual(full.right)
          expect(plain).toStrictEqual(toPlain(full.right))
        }
      }
      fc.assert(fc.property(wires, agrees), { numRuns: 300 })
      // and every field of a valid record set to every edge string, or removed: each decision, not a random few
      const samples = fc.sample(Arbitrary.make(schema).map(encode), { seed: 21, numRuns: 20 })
        .map((wire) => ({ list: Array.isArray(wire), record: (Array.isArray(wire) ? wire[0] : wire) as Record<string, unknown> | undefined }))
        .filter((sample) => sample.record !== undefined)
      const keys = [...new Set(samples.flatMap((sample) => Object.keys(sample.record!)))]
      for (const { list, record } of samples.slice(0, 3)) {
        for (const key of keys) {
          const { [key]: _removed, ...without } = record!
          for (const changed of [without, ...EDGE_STRINGS.map((edge) => ({ ...record, [key]: edge }))]) agrees(list ? [changed] : changed)
        }
      }
    })
  }
})
