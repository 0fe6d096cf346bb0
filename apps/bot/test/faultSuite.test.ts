/**
 * The fault suite through the bot: every command that reaches the exchange against every fault the simulator
 * injects. Each gets a clear answer in the chat (never the internal-error reply), the bot keeps serving, and no order
 * is placed twice.
 */
import type { Fault, OperationName } from "@tradedesk/simulator"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { internalErrorView } from "../src/kernel/ui/messages.js"
import { labels, reader, startRig, trader } from "./harness.js"
import type { Rig } from "./harness.js"

const TIMEOUT_MS = 300

let rig: Rig

beforeAll(async () => {
  rig = await startRig({ tickersTtlMs: 1, exchange: { timeoutMs: TIMEOUT_MS } })
})

afterAll(async () => {
  await rig?.close()
})

interface Command {
  readonly operation: OperationName
  /** the command, given a number that makes it unlike earlier ones (the bot keeps invited users of a query a minute) */
  readonly text: (n: number) => string
}

let asked = 0

const reads: ReadonlyArray<Command> = [
  { operation: "tickers", text: () => "/ticker btc" },
  { operation: "planOrders", text: () => "/orders" },
  { operation: "spotBills", text: () => "/bills" },
  { operation: "affiliateStats", text: (n) => `/affiliate ${n}` },
  { operation: "candles", text: () => "/chart btc" }
]

interface Case {
  readonly label: string
  readonly fault: Fault
  /** what a reader is told when a read meets the fault */
  readonly read: RegExp
  /** whether a batch meeting the fault surely was not placed (Confirm is offered again) or its outcome is unknown */
  readonly write: "refused" | "unknown"
}

const cases: ReadonlyArray<Case> = [
  { label: "a 503 gateway page", fault: { kind: "status", status: 503 }, read: /unavailable \(HTTP 503\)/, write: "unknown" },
  { label: "a 500 gateway page", fault: { kind: "status", status: 500 }, read: /unavailable \(HTTP 500\)/, write: "unknown" },
  { label: "an answer later than the timeout", fault: { kind: "latency", ms: TIMEOUT_MS * 3 }, read: /did not answer in time/, write: "unknown" },
  { label: "JSON of the wrong shape", fault: { kind: "malformed" }, read: /cannot read/, write: "unknown" },
  { label: "a truncated answer", fault: { kind: "truncated" }, read: /cannot read/, write: "unknown" },
  { label: "an empty answer", fault: { kind: "empty" }, read: /cannot read/, write: "unknown" },
  { label: "a reset connection", fault: { kind: "drop" }, read: /cannot be reached/, write: "unknown" },
  { label: "429 without Retry-After", fault: { kind: "rateLimit" }, read: /busy \(rate limited\)/, write: "refused" },
  { label: "429 with Retry-After", fault: { kind: "rateLimit", retryAfterSeconds: 1 }, read: /busy \(rate limited\)\. Try again in 1 s/, write: "refused" }
]

const INTERNAL = internalErrorView().text.text

const pause = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

/** The bot keeps a failed market list a second, so a failing exchange is not asked again at once. */
const MARKET_FAILURE_MILLIS = 1_000

/**
 * Until the fault is behind: after a 429 the rig's client waits its short penalty (200 ms) or the Retry-After; a late
 * answer arrives; a failed market list is forgotten.
 */
const settle = (fault: Fault, operation: OperationName) =>
  pause(Math.max(
    fault.kind === "rateLimit" ? (fault.retryAfterSeconds ?? 0.2) * 1000 : 0,
    fault.kind === "latency" ? fault.ms : 0,
    operation === "tickers" ? MARKET_FAILURE_MILLIS : 0
  ) + 50)

const expectNoDuplicatePlacement = () => {
  const placed = rig.simulator.placedClientOids()
  expect(new Set(placed).size).toBe(placed.length)
}

describe("fault suite: every exchange command × every fault, through the bot", () => {
  for (const fault of cases) {
    describe(fault.label, () => {
      for (const command of reads) {
        it(command.text(0), async () => {
          const text = command.text(++asked)
          rig.simulator.setFault(command.operation, fault.fault)
          try {
            const line = await rig.say(reader, text)
            expect(line.outcome).toMatch(/^error:/)
            const reply = rig.last(reader.id).text
            expect(reply).not.toBe(INTERNAL)
            expect(reply).toMatch(fault.read)
          } finally {
            rig.simulator.setFault(command.operation, undefined)
          }
          await settle(fault.fault, command.operation)
          expect((await rig.say(reader, command.text(++asked))).outcome).toBe("ok")
        })
      }

      it("/order, then Confirm", async () => {
        await rig.say(trader, "/order btc open_long 0.01 @ 50000")
        const preview = rig.last(trader.id)
        expect(labels(preview)).toContain("✅ Confirm 1 order")
        const before = rig.simulator.counters().batchOrders
        rig.simulator.setFault("batchOrders", fault.fault)
        try {
          await rig.press(trader, preview, "✅ Confirm 1 order")
        } finally {
          rig.simulator.setFault("batchOrders", undefined)
        }
        const result = rig.api.message(trader.id, preview.messageId)!
        expect(rig.simulator.counters().batchOrders - before).toBe(1)
        if (fault.write === "unknown") {
          expect(result.text).toMatch(/outcome unknown/i)
          expect(labels(result)).not.toContain("✅ Confirm again")
        } else {
          expect(result.text).toMatch(/not placed/)
          expect(labels(result)).toContain("✅ Confirm again")
        }
        await settle(fault.fault, "batchOrders")
        expectNoDuplicatePlacement()
        // the bot keeps serving
        expect((await rig.say(trader, "/orders")).outcome).toBe("ok")
      })
    })
  }

  describe("a clock 60 s ahead on the exchange", () => {
    for (const command of reads) {
      it(`${command.text(0)}: the offset is measured, the command answers`, async () => {
        rig.simulator.setFault("time", { kind: "clockSkew", ms: 60_000 })
        rig.simulator.setFault(command.operation, { kind: "clockSkew", ms: 60_000 })
        try {
          const line = await rig.say(reader, command.text(++asked))
          expect(line.outcome).toBe("ok")
        } finally {
          rig.simulator.setFault("time", undefined)
          rig.simulator.setFault(command.operation, undefined)
        }
      })
    }
  })
})
