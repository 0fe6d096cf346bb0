/**
 * Margin moves on both versions at the wire (V2 `POST /capi/v2/account/adjustMargin`, V3 `POST
 * /capi/v3/account/positionMargin`): the isolated position's margin really changes, and the refusals of a cross
 * position, of more than may move, of a position not held and of malformed bodies.
 */
import { describe, expect, it } from "vitest"
import type { Fixture } from "./helpers.js"
import { json, signed, start } from "./helpers.js"
import { quoteIntegers } from "../src/v3/params.js"
import { expectError, field, okJson, order, place, v3 } from "./v3.helpers.js"

const DOT = "DOTUSDT"

/** The account's position of DOT in that margin mode, as V3 lists it (its integers as digits: the id is above 2^53). */
const dotPosition = async (fx: Fixture, marginType: "ISOLATED" | "CROSSED") => {
  const answer = await v3(fx, "/capi/v3/account/position/allPosition")
  const positions = okJson({ ...answer, text: quoteIntegers(answer.text) }) as ReadonlyArray<unknown>
  return positions.find((position) => field(position, "symbol") === DOT && field(position, "marginType") === marginType)
}

/** A long of 100 DOT at 7.000, opened in the mode given: its position id (the digits, above 2^53). */
const openDot = async (fx: Fixture, marginType: "ISOLATED" | "CROSSED") => {
  fx.sim.setPrice("cmt_dotusdt", "7.000")
  if (marginType === "ISOLATED") okJson(await v3(fx, "/capi/v3/account/marginType", { body: JSON.stringify({ symbol: DOT, marginType }) }))
  await place(fx, order({ clientId: `dot-${marginType}`, symbol: DOT, quantity: "100.0" }))
  const id = field(await dotPosition(fx, marginType), "id")
  expect(String(id)).toMatch(/^\d{17,}$/)
  return String(id)
}

const move = (fx: Fixture, body: string) => v3(fx, "/capi/v3/account/positionMargin", { body })
const isolatedMargin = async (fx: Fixture) => String(field(await dotPosition(fx, "ISOLATED"), "isolatedMargin"))

describe("V3 positionMargin", () => {
  it("adds and reduces an isolated position's margin; answers the status body", async () => {
    const fx = await start()
    const id = await openDot(fx, "ISOLATED")
    const opened = await isolatedMargin(fx)
    expect(okJson(await move(fx, `{"isolatedPositionId":${id},"amount":"10.5","type":1}`))).toEqual({ code: "200", msg: "success", requestTime: fx.clock.now })
    expect(Number(await isolatedMargin(fx)) - Number(opened)).toBeCloseTo(10.5, 8)
    // the long lost 0.1 at the mark (bought at the ask, 7.001): 10.4 of the 10.5 may move back out
    expectError(await move(fx, `{"isolatedPositionId":${id},"amount":"10.5","type":2}`), 400, -1054)
    okJson(await move(fx, `{"isolatedPositionId":${id},"amount":"10.4","type":2}`))
    expect(Number(await isolatedMargin(fx)) - Number(opened)).toBeCloseTo(0.1, 8)
  })

  it("refuses more than may move (-1054, as seen live), a position not held (-1142) and malformed bodies, moving nothing", async () => {
    const fx = await start()
    const id = await openDot(fx, "ISOLATED")
    const opened = await isolatedMargin(fx)
    const tooMuch = await move(fx, `{"isolatedPositionId":${id},"amount":"0.00000001","type":2}`)
    expectError(tooMuch, 400, -1054)
    expect(String(field(json(tooMuch), "msg"))).toMatch(/^FAILED_PRECONDITION: Move margin available amount not enough/)
    expectError(await move(fx, `{"isolatedPositionId":${id},"amount":"100000000","type":1}`), 400, -1054)
    expectError(await move(fx, `{"isolatedPositionId":1,"amount":"1","type":1}`), 400, -1142)
    expectError(await move(fx, `{"isolatedPositionId":${id},"amount":"1","type":3}`), 400, -1140)
    expectError(await move(fx, `{"isolatedPositionId":${id},"amount":"-1","type":1}`), 400, -1142)
    expectError(await move(fx, `{"isolatedPositionId":${id},"amount":"0.000000001","type":1}`), 400, -1160)
    expectError(await move(fx, `{"amount":"1","type":1}`), 400, -1141)
    expect(await isolatedMargin(fx)).toBe(opened)
  })

  it("a cross position has no margin of its own to move", async () => {
    const fx = await start()
    const id = await openDot(fx, "CROSSED")
    expectError(await move(fx, `{"isolatedPositionId":${id},"amount":"1","type":1}`), 400, -1142)
  })
})

describe("V2 adjustMargin", () => {
  it("moves the signed collateralAmount; refuses too much, a coin other than USDT, nothing and a position not held with 40017", async () => {
    const fx = await start()
    const id = await openDot(fx, "ISOLATED")
    const opened = Number(await isolatedMargin(fx))
    const adjust = (body: string) => signed(fx.sim.futuresBaseUrl, "/capi/v2/account/adjustMargin", fx.sim.accounts.trader, { body }, fx.now)
    const done = await adjust(`{"isolatedPositionId":${id},"collateralAmount":"25"}`)
    expect([done.status, json(done)]).toEqual([200, { msg: "success", requestTime: fx.clock.now, code: "200" }])
    expect(Number(await isolatedMargin(fx)) - opened).toBeCloseTo(25, 8)
    expect((await adjust(`{"isolatedPositionId":${id},"collateralAmount":"-24.9","coinId":2}`)).status).toBe(200)
    expect(Number(await isolatedMargin(fx)) - opened).toBeCloseTo(0.1, 8)
    for (const body of [
      `{"isolatedPositionId":${id},"collateralAmount":"-0.00000001"}`,
      `{"isolatedPositionId":${id},"collateralAmount":"1","coinId":1}`,
      `{"isolatedPositionId":${id},"collateralAmount":"0"}`,
      `{"isolatedPositionId":1,"collateralAmount":"1"}`,
      `{"collateralAmount":"1"}`
    ]) {
      const refused = await adjust(body)
      expect([refused.status, field(json(refused), "code")], body).toEqual([400, "40017"])
    }
  })
})
