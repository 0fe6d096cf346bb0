/**
 * What the live V3 service sends where its documentation shows another form (docs/v3.md §1.8, §7, §24, §26): a batch
 * cancel's list inside `{"orderList": …}`, a whole number as its digits, a time not yet reached as `0` or `"0"`. Each
 * form is read on every decode path (the fast decoder, the full Schema, the Promise facade's plain records), which
 * must agree; the documented forms are still read.
 */
import { DateTime, Either, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { optionalInteger } from "../src/account/optionalWire.js"
import * as Endpoints from "../src/Endpoints.js"
import { quoteLongIntegers } from "../src/internal/exactIntegers.js"
import { plainCodec } from "../src/internal/plainRecord.js"
import * as W from "../src/internal/wireRecord.js"
import * as PlanOrder from "../src/orders/PlanOrder.js"
import * as V3Account from "../src/v3/account.js"
import * as OrderReads from "../src/v3/orderReads.js"
import * as OrderWrites from "../src/v3/orderWrites.js"
import { fixture } from "./loopback.js"

/** The codec's value for the wire on each path: the fast decoder and the full Schema agree, or the test fails. */
const read = <A, I>(codec: W.Codec<A, I>, wire: unknown): Either.Either<A, string> => {
  const fast = codec.fast(wire, W.DEFAULT_LIMITS)
  const full = Schema.decodeUnknownEither(codec.schema)(wire)
  expect(fast === W.INVALID, `fast and full disagree on ${JSON.stringify(wire)}`).toBe(Either.isLeft(full))
  if (Either.isLeft(full)) return Either.left(full.left.message)
  expect(fast).toEqual(full.right)
  // the path callers take: fast first, the Schema only to explain a refusal
  expect(codec.decode(wire)).toEqual(Either.right(full.right))
  return Either.right(full.right)
}

/** The codec's plain records (the Promise facade's path straight from the field table), or undefined when refused. */
const plain = <A, I>(codec: W.Codec<A, I>, wire: unknown) => Either.getOrUndefined(plainCodec(codec).decode(wire))

/** A body as the transport parses it for an endpoint that reads ids exactly: integers of 16+ digits quoted first. */
const parsed = (text: string): unknown => JSON.parse(quoteLongIntegers(text))

/** The sample with every `"orderId": "…"` written as an unquoted JSON number. */
const unquotedIds = (text: string) => text.replace(/"orderId": "(\d+)"/g, "\"orderId\": $1")

describe("batch cancel (DELETE /capi/v3/batchOrders): the list bare (documented) or in orderList (live)", () => {
  const codec = OrderWrites.cancelChunk.response
  const EXPECTED = [
    { orderId: "702345678901234567", clientOid: "", cancelled: true, errorMessage: "", errorCode: "" },
    { orderId: "702345678901234568", clientOid: "", cancelled: false, errorMessage: "orderId not exist", errorCode: "ORDER_NOT_FOUND" }
  ]

  it("reads both forms alike, ids exact whether strings or JSON numbers above 2^53, on every path", async () => {
    const live = await fixture("v3/writes.cancelOrders.live.json")
    const documented = await fixture("v3/writes.cancelOrders.json")
    for (const text of [live, unquotedIds(live), documented, unquotedIds(documented)]) {
      expect(read(codec, parsed(text))).toEqual(Either.right(EXPECTED))
      expect(plain(codec, parsed(text))).toEqual(EXPECTED)
    }
    // the live sample's ids as numbers really are numbers on the wire, 18 digits each
    expect(unquotedIds(live)).toContain("\"orderId\": 702345678901234568")
  })

  it("refuses a wrapper without its list (never read as an empty list: a cancel's answer would then say nothing)", () => {
    for (const wire of [{}, { orderList: null }, { orderList: "[]" }, { orders: [] }, { orderList: [{ orderId: "1" }] }]) {
      expect(Either.isLeft(read(codec, wire)), JSON.stringify(wire)).toBe(true)
    }
  })

  it("writes the form seen live", () => {
    expect(Schema.encodeSync(codec.schema)([EXPECTED[0]!])).toEqual({
      orderList: [{ orderId: "702345678901234567", origClientOrderId: "", success: true, errorMessage: "", errorCode: "" }]
    })
  })

  it("a list of records without the option stays bare only", () => {
    const bare = W.many(W.record({ n: W.integer("n") }))
    expect(read(bare, [{ n: 1 }])).toEqual(Either.right([{ n: 1 }]))
    expect(Either.isLeft(read(bare, { orderList: [{ n: 1 }] }))).toBe(true)
  })
})

describe("whole numbers: a JSON number or its digits (a spot bill's coinId came as \"82\")", () => {
  const codec = W.one(W.record({ required: W.integer("required"), optional: optionalInteger("optional") }))

  it("reads a number, or its digits with an optional minus, as the same number", () => {
    const cases: ReadonlyArray<readonly [unknown, number]> = [
      [82, 82],
      ["82", 82],
      [-5, -5],
      ["-5", -5],
      ["0", 0],
      ["-0", 0],
      ["007", 7],
      [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
      [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
      [String(Number.MIN_SAFE_INTEGER), Number.MIN_SAFE_INTEGER]
    ]
    for (const [wire, value] of cases) {
      expect(read(codec, { required: wire, optional: wire }), JSON.stringify(wire)).toEqual(Either.right({ required: value, optional: Option.some(value) }))
      expect(plain(codec, { required: wire, optional: wire })).toEqual({ required: value, optional: value })
    }
    expect(read(codec, { required: "1" })).toEqual(Either.right({ required: 1, optional: Option.none() }))
  })

  it("refuses what is not a whole number within 2^53, on both paths", () => {
    const refused = ["9007199254740992", "12345678901234567", "1.0", "1e3", " 82", "82 ", "", "+5", "--5", "-", "0x10", "８２", 1.5, 2 ** 53, Number.NaN, true, null, [82], {}]
    for (const wire of refused) {
      expect(Either.isLeft(read(codec, { required: wire })), `required ${JSON.stringify(wire)}`).toBe(true)
      if (wire !== null) expect(Either.isLeft(read(codec, { required: 1, optional: wire })), `optional ${JSON.stringify(wire)}`).toBe(true)
    }
  })

  it("writes a number", () => {
    expect(Schema.encodeSync(codec.schema)({ required: 82, optional: Option.some(-3) })).toEqual({ required: 82, optional: -3 })
  })

  it("a live spot bill (coinId \"82\") reads on V3 and on V2's record, as the documented one (coinId 2) does", async () => {
    const live = await fixture("v3/account/spotBills.live.json")
    const documented = await fixture("v3/account/spotBills.json")
    for (const codecOfVersion of [V3Account.spotBills.response, Endpoints.spotBills.response]) {
      const [bill] = Either.getOrThrow(read(codecOfVersion, parsed(live)))
      expect(bill).toMatchObject({ billId: "736825748291061726", coinId: 82, coinName: "DOGE", bizType: "trade_in" })
      expect(DateTime.toEpochMillis(bill!.createdAt)).toBe(1775672947953)
      expect(plain(codecOfVersion, parsed(live))?.[0]).toMatchObject({ coinId: 82, createdAt: new Date(1775672947953) })
      const [official] = Either.getOrThrow(read(codecOfVersion, parsed(documented)))
      expect(official!.coinId).toBe(2)
      // and the other way round: the documented number as digits, the live digits as a number
      expect(Either.getOrThrow(read(codecOfVersion, parsed(documented.replace("\"coinId\": 2", "\"coinId\": \"2\""))))[0]!.coinId).toBe(2)
      expect(Either.getOrThrow(read(codecOfVersion, parsed(live.replace("\"coinId\": \"82\"", "\"coinId\": 82"))))[0]!.coinId).toBe(82)
    }
  })
})

describe("times that may not have happened yet: 0, \"0\", \"\" and null are none, never 1970-01-01", () => {
  const planWire = async () => (JSON.parse(await fixture("currentPlan.json")) as Array<Record<string, unknown>>)[0]!
  const triggeredAt = (list: ReadonlyArray<PlanOrder.PlanOrder>) => Option.map(list[0]!.triggeredAt, DateTime.toEpochMillis)

  it("V2's plan order: every form of \"no time\" reads as none; a time as digits or a number as that time", async () => {
    const wire = await planWire()
    for (const none of [0, "0", "", null]) {
      const list = Either.getOrThrow(read(PlanOrder.PlanOrderList, [{ ...wire, triggerTime: none }]))
      expect(triggeredAt(list), JSON.stringify(none)).toEqual(Option.none())
      expect(plain(PlanOrder.PlanOrderList, [{ ...wire, triggerTime: none }])?.[0]?.triggeredAt).toBeUndefined()
    }
    for (const time of ["1764506000123", 1764506000123]) {
      const list = Either.getOrThrow(read(PlanOrder.PlanOrderList, [{ ...wire, triggerTime: time }]))
      expect(triggeredAt(list)).toEqual(Option.some(1764506000123))
      expect(plain(PlanOrder.PlanOrderList, [{ ...wire, triggerTime: time }])?.[0]?.triggeredAt).toEqual(new Date(1764506000123))
    }
    // 1 ms after the epoch is a time: only 0 means none
    expect(triggeredAt(Either.getOrThrow(read(PlanOrder.PlanOrderList, [{ ...wire, triggerTime: "1" }])))).toEqual(Option.some(1))
    for (const bad of ["-1", -1, "00:00", "1.5", 1.5, "1e3", true]) {
      expect(Either.isLeft(read(PlanOrder.PlanOrderList, [{ ...wire, triggerTime: bad }])), JSON.stringify(bad)).toBe(true)
    }
  })

  it("V3's algo order: the live untriggered order's triggerTime \"0\" (and 0) is none; a triggered one's time is read", async () => {
    const live = await fixture("v3/reads/openAlgoOrdersLive.json")
    const codec = OrderReads.planOrders.response
    const at = (triggerTime: string) => {
      const list = Either.getOrThrow(codec.decode(parsed(`[${live.replace("\"triggerTime\": 0", `"triggerTime": ${triggerTime}`)}]`)))
      return Option.map(list[0]!.triggeredAt, DateTime.toEpochMillis)
    }
    expect(live).toContain("\"triggerTime\": 0")
    for (const none of ["0", "\"0\"", "\"\"", "null"]) expect(at(none), none).toEqual(Option.none())
    expect(at("1775732300000")).toEqual(Option.some(1775732300000))
    expect(at("\"1775732300000\"")).toEqual(Option.some(1775732300000))
    expect(Either.isLeft(codec.decode(parsed(`[${live.replace("\"triggerTime\": 0", "\"triggerTime\": -1")}]`)))).toBe(true)
  })
})
