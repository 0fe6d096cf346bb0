/**
 * The bot end to end: the simulator as the exchange, the local Bot API server as Telegram, users acting through it.
 */
import type { OperationName } from "@tradedesk/simulator"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import { commands } from "../src/kernel/ui/commands.js"
import type { ApiCall } from "../src/kernel/telegram/local/LocalBotApi.js"
import { group, labels, preOf, reader, speak, startRig, stranger, trader, until } from "./harness.js"
import type { Rig } from "./harness.js"

// the suite on each API version the bot speaks (docs/v3.md), one after the other: each starts its own rigs
describe.each(["v2", "v3"] as const)("on %s", (version) => {
  beforeAll(() => {
    speak(version)
  })

  let rig: Rig

  beforeAll(async () => {
    rig = await startRig()
  })

  afterAll(async () => {
    await rig?.close()
  })

  const total = (counters: Readonly<Record<OperationName, number>>) => Object.values(counters).reduce((sum, count) => sum + count, 0)

  const rawTickers = async (): Promise<ReadonlyArray<Record<string, string>>> => {
    const response = await fetch(`${rig.simulator.futuresBaseUrl}/capi/v2/market/tickers`)
    return (await response.json()) as ReadonlyArray<Record<string, string>>
  }

  describe("market data", () => {
    it("serves concurrent and recent /tickers and /ticker from one upstream request", async () => {
      const before = rig.simulator.counters().tickers
      const updates = [
        rig.api.sendText(trader, "/tickers"),
        rig.api.sendText(reader, "/tickers gainers"),
        rig.api.sendText(trader, "/ticker btc"),
        rig.api.sendText(reader, "/ticker ETHUSDT")
      ]
      const outcomes = await Promise.all(updates.map(rig.handled))
      expect(outcomes.map((line) => line.outcome)).toEqual(["ok", "ok", "ok", "ok"])
      await rig.say(trader, "/ticker cmt_solusdt")
      expect(rig.simulator.counters().tickers - before).toBe(1)
    })

    it("sets the command menu at start", () => {
      const call = rig.api.calls.find((item) => item.method === "setMyCommands")
      const menu = (call?.payload.commands ?? []) as ReadonlyArray<{ command: string }>
      expect(menu.map((command) => command.command)).toEqual(commands().filter((command) => command.name !== "start").map((command) => command.name))
    })

    it("/tickers shows 20 markets by volume in a table, and pages in place", async () => {
      await rig.say(trader, "/tickers")
      const first = rig.last(trader.id)
      const rows = preOf(first).split("\n")
      expect(rows[0]).toMatch(/^PAIR\s+LAST\s+24H\s+VOL$/)
      expect(rows).toHaveLength(21)
      expect(rows[1]).toMatch(/^BTCUSDT /)
      expect(first.text).toContain("page 1/12")
      expect(labels(first)).toEqual(["⟳ Refresh", "Next ›"])

      await rig.press(trader, first, "Next ›")
      const second = rig.api.message(trader.id, first.messageId)!
      expect(second.edits).toBe(1)
      expect(second.text).toContain("page 2/12")
      expect(labels(second)).toEqual(["⟳ Refresh", "‹ Prev", "Next ›"])
      expect(preOf(second).split("\n")[1]).not.toMatch(/^BTCUSDT /)

      // a refresh with nothing new is not an error
      const refreshed = await rig.press(trader, second, "⟳ Refresh")
      expect(refreshed.outcome).toBe("ok")
    })

    it("answers a button press before doing the work", async () => {
      await rig.say(trader, "/tickers")
      const message = rig.last(trader.id)
      const from = rig.api.calls.length
      await rig.press(trader, message, "Next ›")
      const calls = rig.api.calls.slice(from).map((call) => call.method).filter((method) => method !== "getUpdates")
      expect(calls).toEqual(["answerCallbackQuery", "editMessageText"])
    })

    it("/tickers filters and sorts by change", async () => {
      await rig.say(trader, "/tickers eth")
      const rows = preOf(rig.last(trader.id)).split("\n").slice(1)
      expect(rows.length).toBeGreaterThan(0)
      for (const row of rows) expect(row.split(" ")[0]!.toLowerCase()).toContain("eth")

      await rig.say(trader, "/tickers gainers")
      const changes = preOf(rig.last(trader.id)).split("\n").slice(1).map((row) => Number(row.trim().split(/\s+/)[2]!.replace("%", "")))
      expect(changes).toEqual([...changes].sort((a, b) => b - a))

      await rig.say(trader, "/tickers zzzzqq")
      expect(rig.last(trader.id).text).toContain('No market matching "zzzzqq"')
    })

    it("/ticker shows one market with the exchange's own digits", async () => {
      const raw = (await rawTickers()).find((ticker) => ticker.symbol === "cmt_btcusdt")!
      for (const typed of ["btc", "BTCUSDT", "cmt_btcusdt"]) {
        await rig.say(trader, `/ticker ${typed}`)
        const message = rig.last(trader.id)
        expect(message.text).toContain("BTCUSDT")
        const block = preOf(message)
        expect(block).toContain(`Last        ${raw.last}`)
        expect(block).toContain(`${raw.best_bid} / ${raw.best_ask}`)
        expect(block).toContain(`24 h high   ${raw.high_24h}`)
        // volumes grouped for reading; the digits are the exchange's own
        const ungrouped = block.replaceAll("\u00a0", "")
        expect(ungrouped).toContain(`${raw.volume_24h} USDT`)
        expect(ungrouped).toContain(`${raw.base_volume} BTC`)
        if (raw.markPrice !== undefined) expect(block).toContain(`Mark        ${raw.markPrice}`)
        expect(message.text).toMatch(/Data time \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/)
      }
    })

    it("/ticker suggests close symbols for an unknown one, as buttons", async () => {
      await rig.say(trader, "/ticker btx")
      const message = rig.last(trader.id)
      expect(message.text).toContain("No market BTX. Did you mean")
      expect(labels(message)).toContain("BTCUSDT")
      await rig.press(trader, message, "BTCUSDT")
      expect(preOf(rig.api.message(trader.id, message.messageId)!)).toContain("Bid / ask")
    })
  })

  describe("plan orders", () => {
    it("/orders lists them with named types and statuses, paged", async () => {
      await rig.say(reader, "/orders")
      const message = rig.last(reader.id)
      expect(message.text).toMatch(/Plan orders · \d+ · page 1\/\d/)
      expect(message.text).toMatch(/(Open|Close) (long|short)/)
      expect(message.text).toMatch(/Pending|Canceled/)
      expect(message.text).toMatch(/size \d/)
      expect(message.text).toMatch(/trigger \d/)
      expect(message.text).toMatch(/created \d{4}-\d{2}-\d{2}/)
      expect(labels(message)).toContain("Next ›")
      await rig.press(reader, message, "Next ›")
      expect(rig.api.message(reader.id, message.messageId)!.text).toContain("page 2/")
    })

    it("/orders for a market without any says so", async () => {
      await rig.say(reader, "/orders ltc")
      expect(rig.last(reader.id).text).toBe("No current plan orders on LTCUSDT.")
    })

    it("/orders for a market that does not exist suggests close ones, without asking for plan orders", async () => {
      const before = rig.simulator.counters().planOrders
      expect((await rig.say(reader, "/orders btx")).outcome).toBe("unknown_symbol")
      const message = rig.last(reader.id)
      expect(message.text).toMatch(/^No market BTX\. Did you mean BTCUSDT/)
      expect(rig.simulator.counters().planOrders).toBe(before)
      // a suggestion opens that market's plan orders
      await rig.press(reader, message, "BTCUSDT")
      expect(rig.api.message(reader.id, message.messageId)!.text).toMatch(/^(Plan orders on BTCUSDT|No current plan orders on BTCUSDT)/)
      expect(rig.simulator.counters().planOrders).toBe(before + 1)
    })
  })

  describe("batch orders", () => {
    const preview = async (text: string) => {
      const outcome = await rig.say(trader, text)
      expect(outcome.outcome).toBe("preview")
      return rig.last(trader.id)
    }

    it("previews each order with its notional value, then places the batch once however often Confirm is pressed", async () => {
      const before = rig.simulator.counters().batchOrders
      const message = await preview("/order btc\nopen_long 0.010 @ 50000 tp 70000 sl 45000\nclose_short 0.02 market")
      expect(message.text).toContain("Preview · BTCUSDT · 2 orders")
      expect(message.text).toContain("1. Open long 0.010 @ 50000 · TP 70000 · SL 45000")
      expect(message.text).toContain("notional 500.000 USDT")
      expect(message.text).toMatch(/2\. Close short 0\.02 at market\n\s+notional ≈ [\d.]+ USDT at [\d.]+ · closes: no margin · fee ≈ [\d.]+ \(taker\)/)
      expect(labels(message)).toEqual(["✅ Confirm 2 orders", "✖ Cancel"])
      expect(rig.simulator.counters().batchOrders).toBe(before)

      // a double press: both arrive before the first is done; then a late press on the stale button
      const confirm = LocalButtons.data(message, "✅ Confirm 2 orders")
      await Promise.all([rig.handled(rig.api.pressData(trader, message, confirm)), rig.handled(rig.api.pressData(trader, message, confirm))])
      await rig.handled(rig.api.pressData(trader, message, confirm))

      expect(rig.simulator.counters().batchOrders - before).toBe(1)
      const placed = rig.simulator.placedClientOids(rig.simulator.accounts.agent.apiKey)
      const oids = placed.filter((oid) => oid.startsWith("tdb"))
      expect(new Set(oids).size).toBe(oids.length)
      const result = rig.api.message(trader.id, message.messageId)!
      expect(result.text).toContain("BTCUSDT · 2 of 2 placed")
      expect(result.text).toMatch(/✅ 1\. Open long 0\.010 @ 50000 · TP 70000 · SL 45000 → order \d+/)
      expect(labels(result)).toEqual([])
      expect(rig.last(trader.id).text).toContain("sent once already")
    })

    it("places at once on Confirm, saying so in the press's answer, and puts the result in place of the preview after", async () => {
      const before = rig.simulator.counters().batchOrders
      const message = await preview("/order btc open_long 0.01 @ 50000")
      const seen: Array<string> = []
      // what the user sees, with how many batches the exchange had taken by then
      const listener = (call: ApiCall) => {
        if (call.method === "answerCallbackQuery" || call.method === "editMessageText") {
          seen.push(`${call.method}: ${String(call.payload.text ?? "").split("\n")[0]} (${rig.simulator.counters().batchOrders - before} sent)`)
        }
      }
      rig.api.on("call", listener)
      try {
        await rig.press(trader, message, "✅ Confirm 1 order")
      } finally {
        rig.api.off("call", listener)
      }
      expect(seen).toEqual(["answerCallbackQuery: Placing 1 order… (0 sent)", "editMessageText: BTCUSDT · 1 of 1 placed (1 sent)"])
    })

    it("places at once even when Telegram answers the press's answer with a 429, and does not retry that answer", async () => {
      const before = rig.simulator.counters().batchOrders
      const message = await preview("/order btc open_long 0.01 @ 50000")
      // an hour to wait: a bot that waited it out before placing would never place within the test
      rig.api.failNext("answerCallbackQuery", { code: 429, description: "Too Many Requests: retry after 3600", retryAfter: 3_600 })
      const from = rig.api.calls.length
      const confirmed = rig.press(trader, message, "✅ Confirm 1 order")
      await until(() => rig.simulator.counters().batchOrders > before, "the batch")
      expect((await confirmed).outcome).toBe("placed")
      expect(rig.api.calls.slice(from).filter((call) => call.method === "answerCallbackQuery").map((call) => call.status)).toEqual([429])
    })

    it("does not let Cancel claim the orders were sent while they are still being placed", async () => {
      const before = rig.simulator.counters().batchOrders
      const message = await preview("/order btc open_long 0.01 @ 50000")
      rig.simulator.setFault("batchOrders", { kind: "latency", ms: 300, times: 1 })
      const confirmed = rig.handled(rig.api.press(trader, trader.id, message.messageId, "✅ Confirm 1 order"))
      await until(() => rig.simulator.counters().batchOrders > before)
      await rig.press(trader, message, "✖ Cancel")
      expect(rig.last(trader.id).text).toBe("Too late to cancel: these orders are being placed.")
      expect((await confirmed).outcome).toBe("placed")
      expect(rig.api.message(trader.id, message.messageId)!.text).toContain("1 of 1 placed")
    })

    it("refuses a batch for good, without Confirm again, when sending it again would be refused again", async () => {
      const before = rig.simulator.counters().batchOrders
      const message = await preview("/order btc open_long 0.01 @ 50000")
      // a refusal the checks cannot foresee (a gateway's 400): sending it again would be refused again
      rig.simulator.setFault("batchOrders", { kind: "status", status: 400, times: 1 })
      const confirm = LocalButtons.data(message, "✅ Confirm 1 order")
      await rig.press(trader, message, "✅ Confirm 1 order")
      const refused = rig.api.message(trader.id, message.messageId)!
      expect(refused.text).toContain("BTCUSDT · not placed\nThe exchange refused the request (HTTP 400).")
      expect(refused.text).toContain("Nothing was placed.")
      expect(labels(refused)).toEqual([])
      await rig.handled(rig.api.pressData(trader, message, confirm))
      expect(rig.last(trader.id).text).toContain("nothing was placed")
      expect(rig.simulator.counters().batchOrders - before).toBe(1)
    })

    it("reports a partly refused batch per order, with the exchange's code and message", async () => {
      // V3 has no margin mode per order (core refuses one there: see the next test)
      const onV3 = version === "v3"
      const message = await preview(`/order eth${onV3 ? "" : " isolated"}; open_long 0.01 @ 3000; open_short 0.01 @ 999999`)
      expect(message.text).toContain(`Preview · ETHUSDT · 2 orders${onV3 ? "" : " · isolated margin"}`)
      await rig.press(trader, message, "✅ Confirm 2 orders")
      const result = rig.api.message(trader.id, message.messageId)!.text
      expect(result).toContain("1 of 2 placed")
      expect(result).toMatch(/✅ 1\. .* → order \d+/)
      // each version's own per-order code, verbatim
      expect(result).toMatch(onV3
        ? /❌ 2\. Open short 0\.01 @ 999999 → refused: PRICE_OUT_OF_RANGE /
        : /❌ 2\. Open short 0\.01 @ 999999 → refused: 43009 price above the highest allowed price/)
    })

    it.runIf(version === "v3")("on V3 refuses a batch's margin mode before sending, saying why", async () => {
      const before = rig.simulator.counters().batchOrders
      const message = await preview("/order eth isolated; open_long 0.01 @ 3000")
      await rig.press(trader, message, "✅ Confirm 1 order")
      expect(rig.api.message(trader.id, message.messageId)!.text).toContain("refused before sending: marginMode")
      expect(rig.simulator.counters().batchOrders).toBe(before)
    })

    it("places nothing on Cancel, nor on a Confirm pressed after it", async () => {
      const before = rig.simulator.counters().batchOrders
      const message = await preview("/order btc open_long 0.01 @ 50000")
      const confirm = LocalButtons.data(message, "✅ Confirm 1 order")
      await rig.press(trader, message, "✖ Cancel")
      expect(rig.api.message(trader.id, message.messageId)!.text).toBe("Cancelled; nothing was placed.")
      await rig.handled(rig.api.pressData(trader, message, confirm))
      expect(rig.simulator.counters().batchOrders).toBe(before)
    })

    it("answers a bad order with the reason and the grammar, and an unknown market with suggestions", async () => {
      const usage = await rig.say(trader, "/order btc\nopen_lng 1 @ 5")
      expect(usage.outcome).toBe("usage")
      const text = rig.last(trader.id).text
      expect(text).toContain('Order 1 ("open_lng 1 @ 5"): "open_lng" is not a side')
      expect(text).toContain("Usage: /order <symbol>")
      await rig.say(trader, "/order btx; open_long 1 @ 5")
      expect(rig.last(trader.id).text).toContain("Did you mean")
    })

    it("keeps a preview for a few minutes only", async () => {
      const skew = { value: 0 }
      const local = await startRig({ clockSkewMs: skew })
      try {
        await local.say(trader, "/order btc open_long 0.01 @ 50000")
        const message = local.last(trader.id)
        skew.value = 6 * 60_000
        await local.press(trader, message, "✅ Confirm 1 order")
        expect(local.api.message(trader.id, message.messageId)!.text).toContain("expired unconfirmed")
        expect(local.simulator.counters().batchOrders).toBe(0)
      } finally {
        await local.close()
      }
    })
  })

  describe("previews waiting for Confirm", () => {
    it("keeps the newest five per trader; Confirm on an older one says it expired and places nothing", async () => {
      const before = rig.simulator.counters().batchOrders
      const previews = []
      for (let i = 0; i < 6; i++) {
        await rig.say(trader, `/order btc open_long 0.01 @ ${50_000 + i}`)
        previews.push(rig.last(trader.id))
      }
      await rig.press(trader, previews[0]!, "✅ Confirm 1 order")
      expect(rig.api.message(trader.id, previews[0]!.messageId)!.text).toMatch(/^This preview expired unconfirmed: newer previews took its place.*Nothing was placed from it/)
      expect(rig.simulator.counters().batchOrders).toBe(before)
      await rig.press(trader, previews[5]!, "✅ Confirm 1 order")
      expect(rig.api.message(trader.id, previews[5]!.messageId)!.text).toContain("1 of 1 placed")
    })
  })

  // the button data a message carries under a label
  const LocalButtons = {
    data: (message: { replyMarkup: { inline_keyboard: ReadonlyArray<ReadonlyArray<{ text: string }>> } | undefined }, label: string): string => {
      const button = message.replyMarkup?.inline_keyboard.flat().find((item) => item.text === label)
      if (button === undefined || !("callback_data" in button) || typeof button.callback_data !== "string") throw new Error(`no ${label}`)
      return button.callback_data
    }
  }

  describe("spot bills", () => {
    it("/bills shows a page and walks back with Older, without repeating a bill", async () => {
      await rig.say(reader, "/bills")
      const message = rig.last(reader.id)
      const firstRows = preOf(message).split("\n")
      expect(firstRows[0]).toMatch(/^TIME UTC\s+COIN\s+TYPE\s+CHANGE\s+BALANCE\s+FEE$/)
      expect(firstRows).toHaveLength(11)
      await rig.press(reader, message, "Older ›")
      const older = rig.api.message(reader.id, message.messageId)!
      const olderRows = preOf(older).split("\n")
      expect(olderRows.length).toBeGreaterThan(1)
      expect(labels(older)).toContain("« Newest")
      const firstPage = new Set(firstRows.slice(1))
      for (const row of olderRows.slice(1)) expect(firstPage.has(row)).toBe(false)
    })

    it("/bills filters by coin, type and time", async () => {
      await rig.say(reader, "/bills usdt deposit 30d")
      const message = rig.last(reader.id)
      expect(message.text).toContain("USDT · deposit · since")
      for (const row of preOf(message).split("\n").slice(1)) expect(row).toMatch(/ USDT +deposit +\+/)
      await rig.say(reader, "/bills nosuchcoin")
      expect(rig.last(reader.id).text).toContain("No bills in NOSUCHCOIN")
    })

    it("/bills csv sends the selection as a file", async () => {
      const outcome = await rig.say(reader, "/bills csv usdt")
      expect(outcome.outcome).toBe("csv")
      const document = rig.last(reader.id).document!
      expect(document.fileName).toMatch(/^bills-usdt-\d{4}-\d{2}-\d{2}\.csv$/)
      const lines = document.data.toString("utf8").trimEnd().split("\r\n")
      expect(lines[0]).toBe("time_utc,bill_id,coin,coin_id,type,change,balance_after,fee,fill_size,fill_value")
      expect(lines.length).toBeGreaterThan(1)
      for (const line of lines.slice(1)) expect(line.split(",")[2]).toBe("USDT")
    })
  })

  describe("affiliate", () => {
    it("/affiliate shows the totals and pages through the invited users", async () => {
      await rig.say(reader, "/affiliate")
      const message = rig.last(reader.id)
      const totals = preOf(message)
      for (const label of ["Deposits", "Withdrawals", "Spot volume", "Futures volume", "Commission"]) expect(totals).toContain(label)
      expect(message.text).toMatch(/\d+ invited users/)
      expect(message.text).toMatch(/UID \d+ · commission/)
      await rig.press(reader, message, "Next ›")
      expect(rig.api.message(reader.id, message.messageId)!.text).toContain("Users · page 2/")
    })

    it("/affiliate csv exports every page", async () => {
      await rig.say(reader, "/affiliate")
      const users = Number(/(\d+) invited users/.exec(rig.last(reader.id).text)![1])
      await rig.say(reader, "/affiliate csv")
      const lines = rig.last(reader.id).document!.data.toString("utf8").trimEnd().split("\r\n")
      expect(lines[0]).toBe("uid,deposit,withdrawal,spot_volume,futures_volume,commission")
      expect(lines).toHaveLength(users + 1)
    })
  })

  describe("authorization", () => {
    it("refuses a stranger every command but help, with no exchange call, and says why once", async () => {
      const before = total(rig.simulator.counters())
      const from = rig.api.botMessages(stranger.id).length
      for (const command of commands().filter((item) => item.access !== "open")) {
        const outcome = await rig.say(stranger, `${command.examples[0]}`)
        expect([command.name, outcome.outcome]).toEqual([command.name, "denied:not_allowed"])
      }
      // told once, not once per attempt
      expect(rig.api.botMessages(stranger.id).slice(from).map((message) => message.text)).toEqual([
        `You are not allowed to use this. The operator can allow your Telegram user id (${stranger.id}).`
      ])
      // a forged button press
      await rig.say(stranger, "/help")
      const help = rig.last(stranger.id)
      const pressed = await rig.handled(rig.api.pressData(stranger, help, CallbackData.encode({ _tag: "Orders", symbol: undefined, page: 0 })))
      expect(pressed.outcome).toBe("denied:not_allowed")
      const junk = await rig.handled(rig.api.pressData(stranger, help, "not-ours"))
      expect(junk.outcome).toBe("denied:unknown_button")
      expect(total(rig.simulator.counters())).toBe(before)
      expect(help.text).not.toContain("8800000002")
    })

    it("answers someone it does not know with help and the /help hint at most once a minute", async () => {
      const flooder = { ...stranger, id: stranger.id + 1000, first_name: "Flood" }
      const outcomes = []
      for (const text of ["/help", "/start", "/help", "hello", "what?", "/nonsense"]) outcomes.push((await rig.say(flooder, text)).outcome)
      expect(outcomes).toEqual(["ok", "ignored", "ignored", "unknown", "ignored", "ignored"])
      expect(rig.api.botMessages(flooder.id)).toHaveLength(2)
    })

    it("checks a command whatever follows its name, as Telegram and telegraf read it", async () => {
      const before = total(rig.simulator.counters())
      // Telegram marks `/bills` in `/bills,` as the command, and telegraf dispatches it
      const texts = ["/bills,", "/affiliate.", "/orders-x", "/order-btc\nopen_long 0.01 @ 65000", "/bills,csv", "/affiliate@tradedesk_bot,"]
      for (const chat of [undefined, group]) {
        for (const text of texts) {
          const outcome = await rig.say(stranger, text, chat)
          expect([text, outcome.outcome, outcome.kind]).toEqual([text, "denied:not_allowed", `/${text.slice(1).split(/[^a-z]/)[0]}`])
        }
      }
      // a reader may see the account, but not in a group
      for (const text of texts.slice(0, 3)) expect((await rig.say(reader, text, group)).outcome).toBe("denied:private_only")
      expect(total(rig.simulator.counters())).toBe(before)
      expect(rig.api.messages(group.id).filter((message) => message.from === undefined && /ledger|UID|Plan orders/.test(message.text))).toEqual([])
    })

    it("keeps order placement for traders and the account for private chats", async () => {
      const before = total(rig.simulator.counters())
      expect((await rig.say(reader, "/order btc open_long 1 @ 5")).outcome).toBe("denied:traders_only")
      expect((await rig.say(reader, "/orders", group)).outcome).toBe("denied:private_only")
      expect(rig.last(group.id).text).toBe("Account commands work only in a private chat with the bot.")
      expect(total(rig.simulator.counters())).toBe(before)
      // market data is fine in a group
      expect((await rig.say(reader, "/tickers", group)).outcome).toBe("ok")
    })

    it("ignores commands for other bots and chatter in groups; hints at /help elsewhere", async () => {
      expect((await rig.say(reader, "/tickers@another_bot", group)).outcome).toBe("ignored")
      expect((await rig.say(reader, "hello all", group)).outcome).toBe("ignored")
      expect((await rig.say(reader, "hello")).outcome).toBe("unknown")
      expect(rig.last(reader.id).text).toBe("I don't know that one. /help lists what I can do.")
      expect((await rig.say(reader, "/frobnicate")).outcome).toBe("unknown")
    })

    it("opens market data to everyone when the market is public", async () => {
      const open = await startRig({ access: { readers: new Set(), traders: new Set(), publicMarket: true } })
      try {
        expect((await open.say(stranger, "/tickers")).outcome).toBe("ok")
        expect((await open.say(stranger, "/orders")).outcome).toBe("denied:not_allowed")
      } finally {
        await open.close()
      }
    })
  })

  describe("exchange faults", () => {
    const cases = [
      { fault: { kind: "status", status: 503 }, reply: "The exchange is unavailable (HTTP 503). Try again later.", outcome: "error:HttpStatusError" },
      { fault: { kind: "malformed" }, reply: "The exchange sent an answer the bot cannot read. Try again later.", outcome: "error:DecodeError" },
      { fault: { kind: "truncated" }, reply: "The exchange sent an answer the bot cannot read. Try again later.", outcome: "error:DecodeError" },
      { fault: { kind: "drop" }, reply: "The exchange cannot be reached right now. Try again in a moment.", outcome: "error:TransportError" },
      { fault: { kind: "rateLimit" }, reply: "The exchange is busy (rate limited). Try again in 1 s.", outcome: "error:RateLimitError" }
    ] as const

    for (const { fault, outcome, reply } of cases) {
      it(`${fault.kind}: a clear reply, and the bot keeps serving`, async () => {
        rig.simulator.setFault("planOrders", { ...fault, times: 1 })
        const failed = await rig.say(reader, "/orders")
        expect(failed.outcome).toBe(outcome)
        expect(rig.last(reader.id).text).toBe(reply)
        // the rate-limit penalty of the rig's client is 200 ms
        await new Promise((resolve) => setTimeout(resolve, fault.kind === "rateLimit" ? 250 : 0))
        expect((await rig.say(reader, "/orders")).outcome).toBe("ok")
      })
    }

    it("shows typing… while a slow request runs", async () => {
      rig.simulator.setFault("spotBills", { kind: "latency", ms: 300, times: 1 })
      const from = rig.api.calls.length
      expect((await rig.say(reader, "/bills")).outcome).toBe("ok")
      const actions = rig.api.calls.slice(from).filter((call) => call.method === "sendChatAction")
      expect(actions.length).toBeGreaterThanOrEqual(1)
      expect(actions[0]!.payload.action).toBe("typing")
    })

    it("tells the user the bot is misconfigured on an auth failure, and logs the detail", async () => {
      for (const status of [401, 403]) {
        rig.simulator.setFault("affiliateStats", { kind: "status", status, times: 1 })
        const line = await rig.say(reader, `/affiliate ${status}d`)
        expect(line.outcome).toBe("error:HttpStatusError")
        expect(line.level).toBe("error")
        expect(line.detail).toContain(`HTTP ${status}`)
        expect(rig.last(reader.id).text).toBe("The bot is misconfigured, so this cannot work until the operator fixes it (the details are in the bot's log).")
      }
    })

    it("keeps the preview confirmable when a batch is refused before anything is accepted", async () => {
      const before = rig.simulator.counters().batchOrders
      await rig.say(trader, "/order btc open_long 0.01 @ 50000")
      const message = rig.last(trader.id)
      rig.simulator.setFault("batchOrders", { kind: "rateLimit", times: 1 })
      await rig.press(trader, message, "✅ Confirm 1 order")
      const refused = rig.api.message(trader.id, message.messageId)!
      expect(refused.text).toContain("not placed")
      expect(labels(refused)).toEqual(["✅ Confirm again", "✖ Cancel"])
      await new Promise((resolve) => setTimeout(resolve, 250))
      await rig.press(trader, refused, "✅ Confirm again")
      expect(rig.api.message(trader.id, message.messageId)!.text).toContain("1 of 1 placed")
      expect(rig.simulator.counters().batchOrders - before).toBe(2)
    })

    it("logs each placement with its order ids, and sends the result anew when the preview cannot be edited", async () => {
      await rig.say(trader, "/order btc open_long 0.01 @ 50000")
      const message = rig.last(trader.id)
      rig.api.failNext("editMessageText", { code: 400, description: "Bad Request: message to edit not found" })
      const outcome = await rig.press(trader, message, "✅ Confirm 1 order")
      expect(outcome.outcome).toBe("placed")
      expect(rig.api.message(trader.id, message.messageId)!.text).toContain("Preview")
      const result = rig.last(trader.id)
      expect(result.messageId).not.toBe(message.messageId)
      expect(result.text).toContain("1 of 1 placed")
      const orderId = /→ order (\d+)/.exec(result.text)![1]
      const line = rig.logs.filter((item) => item.event === "placement").at(-1)!
      expect(line).toMatchObject({ level: "info", user: trader.id, accepted: "1/1", orders: [{ orderId }] })
      const id = CallbackData.decode(LocalButtons.data(message, "✅ Confirm 1 order"))
      expect(line).toHaveProperty("clientOids", [`tdb${id?._tag === "Confirm" ? id.id : "?"}-1`])
      expect(rig.logs.indexOf(line)).toBeLessThan(rig.logs.indexOf(outcome))
    })

    it("never resends a batch whose answer was lost or was a server error", async () => {
      for (const fault of [{ kind: "drop" }, { kind: "status", status: 502 }] as const) {
        const before = rig.simulator.counters().batchOrders
        await rig.say(trader, "/order btc open_long 0.01 @ 50000")
        const message = rig.last(trader.id)
        const confirm = LocalButtons.data(message, "✅ Confirm 1 order")
        rig.simulator.setFault("batchOrders", { ...fault, times: 1 })
        await rig.press(trader, message, "✅ Confirm 1 order")
        const unknown = rig.api.message(trader.id, message.messageId)!
        expect(unknown.text).toContain("outcome unknown")
        expect(labels(unknown)).toEqual([])
        // pressed again: the answer is what the exchange shows of its client id, and nothing is sent
        await rig.handled(rig.api.pressData(trader, message, confirm))
        const id = CallbackData.decode(confirm)
        const clientOid = `tdb${id?._tag === "Confirm" ? id.id : "?"}-1`
        const placed = rig.simulator.placedClientOids().includes(clientOid)
        expect(rig.last(trader.id).text).toContain("outcome unknown")
        expect(rig.last(trader.id).text).toContain(placed ? `client id ${clientOid} → order` : `client id ${clientOid} → not among`)
        expect(rig.simulator.counters().batchOrders - before).toBe(1)
      }
    })
  })

  describe("load", () => {
    it("runs one export at a time and one per rate window, and places orders during one", async () => {
      // core's default budget (500 weight per 10 s), failing fast as the application does
      const local = await startRig({ exchange: { rateLimit: { onExceeded: "fail" } } })
      try {
        await local.say(trader, "/order btc open_long 0.01 @ 50000")
        const preview = local.last(trader.id)
        local.simulator.setFault("affiliateStats", { kind: "latency", ms: 600, times: 1 })
        let exported = false
        const exporting = local.handled(local.api.sendText(reader, "/affiliate csv")).then((line) => {
          exported = true
          return line
        })
        await until(() => local.simulator.counters().affiliateStats > 0)
        expect((await local.say(trader, "/bills csv")).outcome).toBe("error:ExportBusyError")
        expect(local.last(trader.id).text).toMatch(/^Another bulk read \(an export or an affiliate lookup\) is running or has just run; to leave room for trading, try again in \d+ s\.$/)
        expect(local.simulator.counters().spotBills).toBe(0)
        await local.press(trader, preview, "✅ Confirm 1 order")
        expect(local.api.message(trader.id, preview.messageId)!.text).toContain("1 of 1 placed")
        expect(exported).toBe(false)
        expect((await exporting).outcome).toBe("csv")
        // the window the export started is not over yet; a page of bills is no bulk read
        expect((await local.say(trader, "/bills csv")).outcome).toBe("error:ExportBusyError")
        expect((await local.say(trader, "/bills")).outcome).toBe("ok")
      } finally {
        await local.close()
      }
    })

    it("refuses replies to a chat whose line is full, and tells the user so once, never in silence", async () => {
      const local = await startRig({ pacing: { perChatIntervalMs: 1000, chatBacklog: 2 } })
      try {
        const lines = await Promise.all(Array.from({ length: 6 }, (_, i) => local.handled(local.api.sendText(reader, `hello ${i}`))))
        expect(lines.map((line) => line.outcome).sort()).toEqual(["refused", "refused", "refused", "unknown", "unknown", "unknown"])
        expect(lines.filter((line) => line.outcome === "refused").map((line) => line.level)).toEqual(["warn", "warn", "warn"])
        expect(lines.filter((line) => line.detail?.includes("the chat is told to try again in 2 s"))).toHaveLength(1)
        const texts = local.api.botMessages(reader.id).map((message) => message.text)
        expect(texts).toHaveLength(4)
        // the notice goes before the replies still waiting
        expect(texts[1]).toBe("The bot is busy: many replies are waiting to go out. Try again in 2 s.")
      } finally {
        await local.close()
      }
    })
  })

  describe("Telegram limits and failures", () => {
    it("shows a placement's result however full the chat's backlog", async () => {
      const local = await startRig({ pacing: { perChatIntervalMs: 200, chatBacklog: 1 } })
      try {
        await local.say(trader, "/order btc open_long 0.01 @ 50000")
        const message = local.last(trader.id)
        const flood = Array.from({ length: 4 }, (_, i) => local.handled(local.api.sendText(trader, `hello ${i}`)))
        await until(() => local.logs.some((line) => line.outcome === "refused"), "a refused reply")
        expect((await local.press(trader, message, "✅ Confirm 1 order")).outcome).toBe("placed")
        expect(local.api.message(trader.id, message.messageId)!.text).toContain("1 of 1 placed")
        await Promise.all(flood)
      } finally {
        await local.close()
      }
    })

    it("waits out a 429 from Telegram and still delivers the message", async () => {
      rig.api.failNext("sendMessage", { code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 })
      const from = rig.api.calls.length
      const outcome = await rig.say(trader, "/help")
      expect(outcome.outcome).toBe("ok")
      const sends = rig.api.calls.slice(from).filter((call) => call.method === "sendMessage")
      expect(sends.map((call) => call.status)).toEqual([429, "ok"])
      expect(rig.last(trader.id).text).toContain("tradedesk bot shows")
    })

    it("survives Telegram refusing a message and keeps serving", async () => {
      rig.api.failNext("sendMessage", { code: 500, description: "Internal Server Error" }, 2)
      const outcome = await rig.say(trader, "/help")
      expect(outcome.outcome).toBe("fault")
      expect((await rig.say(trader, "/help")).outcome).toBe("ok")
    })

    it("never sent a message over 4096 characters or a button over 64 bytes", () => {
      // "message is not modified" comes from refreshing a view that did not change, which is fine; "not found" was injected
      const expected = ["message is not modified", "message to edit not found"]
      const refused = rig.api.calls.filter((call) => call.status === 400 && !expected.some((text) => call.description?.includes(text)))
      expect(refused.map((call) => `${call.method}: ${call.description}`)).toEqual([])
    })

    it("writes one log line per update, without a secret", () => {
      const updates = rig.logs.filter((line) => line.event === "update")
      expect(updates.length).toBeGreaterThan(40)
      for (const line of updates) {
        expect(line.kind).toBeDefined()
        expect(typeof line.user).toBe("number")
      }
      const all = rig.rawLogs.join("\n")
      // the rig's logger scrubs these secrets, so what counts is that nothing had to be scrubbed
      expect(all).not.toContain("[redacted]")
      const { apiKey, apiSecret, apiPassphrase } = rig.simulator.accounts.agent
      for (const secret of [apiKey, apiSecret, apiPassphrase, "local-test-token"]) expect(all).not.toContain(secret)
    })
  })
})
