/**
 * The fault suite through core: every operation against every fault the simulator injects. Each call ends in the
 * typed error that says what happened (a write whose answer was lost is an unknown outcome, never retried), and no
 * order is placed twice.
 */
import { describe, expect, it } from "vitest"
import { createClient, Decimal } from "@tradedesk/core"
import type { TradeDeskClient, TradeDeskConfig } from "@tradedesk/core"
import type { Fault, OperationName, RunningSimulator } from "../src/index.js"
import { start } from "./helpers.js"

const TIMEOUT_MS = 400

const clientOf = (sim: RunningSimulator, agent: boolean, options: TradeDeskConfig.Options = {}): TradeDeskClient => {
  const account = agent ? sim.accounts.agent : sim.accounts.trader
  return createClient({
    futuresBaseUrl: sim.futuresBaseUrl,
    spotBaseUrl: sim.spotBaseUrl,
    apiKey: account.apiKey,
    apiSecret: account.apiSecret,
    apiPassphrase: account.apiPassphrase,
    timeoutMs: TIMEOUT_MS,
    readRetries: 1,
    rateLimit: { onExceeded: "fail" },
    ...options
  })
}

let oids = 0

interface Operation {
  readonly name: OperationName
  readonly write: boolean
  readonly agent: boolean
  readonly call: (client: TradeDeskClient) => Promise<unknown>
}

const operations: ReadonlyArray<Operation> = [
  { name: "tickers", write: false, agent: false, call: (client) => client.tickers() },
  { name: "time", write: false, agent: false, call: (client) => client.serverTime() },
  { name: "planOrders", write: false, agent: false, call: (client) => client.planOrders({ symbol: "cmt_btcusdt" }) },
  { name: "spotBills", write: false, agent: false, call: (client) => client.spotBills({ limit: 20 }) },
  { name: "affiliateStats", write: false, agent: true, call: (client) => client.affiliateStats({ page: 1, pageSize: 20 }) },
  {
    name: "batchOrders",
    write: true,
    agent: false,
    call: (client) =>
      client.batchOrders({
        symbol: "cmt_btcusdt",
        orders: [{ clientOid: `fault-${++oids}`, type: "open_long", size: Decimal.parse("0.001")!, price: Decimal.parse("60000")! }]
      })
  }
]

interface Case {
  readonly label: string
  readonly fault: Fault
  /** the error's tag for a read and for a write */
  readonly read: string
  readonly write: string
  readonly check?: (error: Record<string, unknown>, operation: Operation) => void
  /** operations whose answer the fault leaves readable */
  readonly unaffected?: ReadonlyArray<OperationName>
}

const cases: ReadonlyArray<Case> = [
  { label: "a 503 gateway page", fault: { kind: "status", status: 503 }, read: "HttpStatusError", write: "OutcomeUnknownError" },
  { label: "a 500 gateway page", fault: { kind: "status", status: 500 }, read: "HttpStatusError", write: "OutcomeUnknownError" },
  {
    label: "an answer later than the timeout",
    fault: { kind: "latency", ms: TIMEOUT_MS * 4 },
    read: "TransportError",
    write: "OutcomeUnknownError",
    check: (error, operation) => {
      if (!operation.write) expect(error["kind"]).toBe("timeout")
    }
  },
  // the server time is read from its numeric `timestamp`, which the fault leaves a number
  { label: "JSON of the wrong shape", fault: { kind: "malformed" }, read: "DecodeError", write: "OutcomeUnknownError", unaffected: ["time"] },
  { label: "a truncated answer", fault: { kind: "truncated" }, read: "DecodeError", write: "OutcomeUnknownError" },
  { label: "an empty answer", fault: { kind: "empty" }, read: "DecodeError", write: "OutcomeUnknownError" },
  { label: "a reset connection", fault: { kind: "drop" }, read: "TransportError", write: "OutcomeUnknownError" },
  {
    label: "429 without Retry-After",
    fault: { kind: "rateLimit" },
    read: "RateLimitError",
    write: "RateLimitError",
    check: (error) => {
      expect(error["source"]).toBe("server")
      expect(error["retryAfterMillis"]).toBe(10_000)
    }
  },
  {
    label: "429 with Retry-After",
    fault: { kind: "rateLimit", retryAfterSeconds: 3 },
    read: "RateLimitError",
    write: "RateLimitError",
    check: (error) => expect(error["retryAfterMillis"]).toBe(3000)
  }
]

const failureOf = async (promise: Promise<unknown>): Promise<Record<string, unknown>> => {
  try {
    await promise
  } catch (error) {
    return error as Record<string, unknown>
  }
  throw new Error("expected the call to fail")
}

const expectNoDuplicatePlacement = (sim: RunningSimulator) => {
  const placed = sim.placedClientOids()
  expect(new Set(placed).size).toBe(placed.length)
}

describe("fault suite: every operation × every fault, through core", () => {
  for (const fault of cases) {
    describe(fault.label, () => {
      for (const operation of operations.filter(({ name }) => !fault.unaffected?.includes(name))) {
        it(operation.name, async () => {
          const { sim } = await start({ now: Date.now })
          const client = clientOf(sim, operation.agent)
          try {
            sim.setFault(operation.name, fault.fault)
            const error = await failureOf(operation.call(client))
            const tag = operation.write ? fault.write : fault.read
            expect(error["_tag"], String(error)).toBe(tag)
            expect(error).toBeInstanceOf(Error)
            expect(String(error["message"])).toMatch(new RegExp(`^${operation.name === "time" ? "serverTime" : operation.name}: `))
            if (tag === "OutcomeUnknownError") {
              expect(error["retryable"]).toBe(false)
              expect(String(error["message"])).toContain(`fault-${oids}`)
            }
            fault.check?.(error, operation)
            expectNoDuplicatePlacement(sim)
            // a write is sent once, whatever happened to its answer; a read at most once more
            expect(sim.counters()[operation.name]).toBeLessThanOrEqual(operation.write ? 1 : 2)
            // the fault gone, the same client works again
            sim.setFault(operation.name, undefined)
            if (fault.fault.kind === "rateLimit") return
            await expect(operation.call(client)).resolves.toBeDefined()
            expectNoDuplicatePlacement(sim)
          } finally {
            await client.close()
          }
        })
      }
    })
  }

  describe("a clock 60 s ahead on the exchange", () => {
    for (const operation of operations) {
      it(`${operation.name}: measured through the server time, then the call goes through`, async () => {
        const { sim } = await start({ now: Date.now })
        const client = clientOf(sim, operation.agent)
        try {
          sim.setFault("time", { kind: "clockSkew", ms: 60_000 })
          if (operation.name !== "time") sim.setFault(operation.name, { kind: "clockSkew", ms: 60_000 })
          await expect(operation.call(client)).resolves.toBeDefined()
          expectNoDuplicatePlacement(sim)
        } finally {
          await client.close()
        }
      })
    }

    it("after the exchange's clock jumps, a signed read is re-measured and sent once more; a write is refused and not sent again", async () => {
      const { sim } = await start({ now: Date.now })
      const client = clientOf(sim, false)
      const order = (clientOid: string) => ({
        symbol: "cmt_btcusdt",
        orders: [{ clientOid, type: "open_long" as const, size: Decimal.parse("0.001")!, price: Decimal.parse("60000")! }]
      })
      try {
        // the offset is measured (0) before this first signed call
        await client.planOrders({ symbol: "cmt_btcusdt" })
        for (const name of ["time", "planOrders", "batchOrders"] as const) sim.setFault(name, { kind: "clockSkew", ms: 60_000 })
        const reads = sim.counters().planOrders
        await expect(client.planOrders({ symbol: "cmt_btcusdt" })).resolves.toBeDefined()
        expect(sim.counters().planOrders - reads).toBe(2)

        sim.setFault("batchOrders", { kind: "clockSkew", ms: 120_000 })
        const writes = sim.counters().batchOrders
        const refused = await failureOf(client.batchOrders(order("clock-1")))
        expect(refused).toMatchObject({ _tag: "ExchangeApiError", code: "40008", category: "clock" })
        expect(String(refused["message"])).toMatch(/offset/)
        expect(sim.counters().batchOrders - writes).toBe(1)
        expect(sim.placedClientOids()).not.toContain("clock-1")
      } finally {
        await client.close()
      }
    })
  })

  describe("wait mode waits out the exchange's 429", () => {
    for (const operation of operations) {
      it(operation.name, async () => {
        const { sim } = await start({ now: Date.now })
        const client = clientOf(sim, operation.agent, { rateLimit: { onExceeded: "wait", maxWaitMs: 5_000 } })
        try {
          sim.setFault(operation.name, { kind: "rateLimit", retryAfterSeconds: 1, times: 1 })
          const started = Date.now()
          await expect(operation.call(client)).resolves.toBeDefined()
          expect(Date.now() - started).toBeGreaterThanOrEqual(900)
          expectNoDuplicatePlacement(sim)
        } finally {
          await client.close()
        }
      })
    }
  })
})
