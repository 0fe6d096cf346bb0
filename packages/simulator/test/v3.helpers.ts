/** V3 calls against a simulator fixture: signed requests, JSON bodies and the key sets of answers. */
import { expect } from "vitest"
import type { DemoAccount } from "../src/index.js"
import type { Answer, Fixture, SignedCall } from "./helpers.js"
import { json, send, signed } from "./helpers.js"

/**
 * A signed V3 request (spot paths go to the spot base URL). A body is sent with its length: Node's client would send a
 * DELETE's body with neither length nor chunking, which no server can read.
 */
export const v3 = (fx: Fixture, path: string, call: SignedCall = {}, account: DemoAccount = fx.sim.accounts.trader): Promise<Answer> => {
  const length = call.body === undefined ? {} : { "Content-Length": String(Buffer.byteLength(call.body)) }
  return signed(path.startsWith("/api/") ? fx.sim.spotBaseUrl : fx.sim.futuresBaseUrl, path, account, { ...call, headers: { ...length, ...call.headers } }, fx.now)
}

/** A public V3 request. */
export const v3Public = (fx: Fixture, path: string, query = ""): Promise<Answer> => send(fx.sim.futuresBaseUrl, path, { query })

/** The answer's JSON after checking it is a 200. */
export const okJson = (answer: Answer): unknown => {
  expect(answer.status, answer.text).toBe(200)
  return json(answer)
}

/** A V3 error: the status, and `{ code, msg }` with the code as a JSON number. */
export const expectError = (answer: Answer, status: number, code: number) => {
  expect(answer.status, answer.text).toBe(status)
  const body = json(answer)
  expect(body).toEqual({ code, msg: expect.any(String) })
}

export const keys = (value: unknown): ReadonlyArray<string> =>
  typeof value === "object" && value !== null ? Object.keys(value).sort() : []

/** A field of a JSON object, undefined for anything else. */
export const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? new Map(Object.entries(value)).get(key) : undefined

/** The first item of a JSON array. */
export const first = (value: unknown): unknown => (Array.isArray(value) ? value[0] : undefined)

/** A LIMIT or MARKET order of the V3 order model, as a placement body's item. */
export const order = (fields: {
  readonly clientId: string
  readonly symbol?: string
  readonly side?: "BUY" | "SELL"
  readonly positionSide?: "LONG" | "SHORT"
  readonly quantity?: string
  readonly price?: string
  readonly timeInForce?: string
}) => ({
  symbol: fields.symbol ?? "BTCUSDT",
  side: fields.side ?? "BUY",
  positionSide: fields.positionSide ?? "LONG",
  type: fields.price === undefined ? "MARKET" : "LIMIT",
  ...(fields.price === undefined ? {} : { timeInForce: fields.timeInForce ?? "GTC", price: fields.price }),
  quantity: fields.quantity ?? "0.010",
  newClientOrderId: fields.clientId
})

/** Places one order through `POST /capi/v3/order`; answers its id (a string, as placement answers it). */
export const place = async (fx: Fixture, item: ReturnType<typeof order>, account?: DemoAccount): Promise<string> => {
  const answer = okJson(await v3(fx, "/capi/v3/order", { body: JSON.stringify(item) }, account))
  expect(answer).toMatchObject({ success: true, errorCode: "", errorMessage: "", clientOrderId: item.newClientOrderId })
  const orderId = field(answer, "orderId")
  if (typeof orderId !== "string") throw new Error(`no order id in ${JSON.stringify(answer)}`)
  return orderId
}
