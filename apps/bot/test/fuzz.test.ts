/**
 * Fuzz: 10,000 seeded random command lines and button presses (real, forged and truncated) from traders, readers
 * and strangers, in private chats and a group, through the bot's handlers against the simulator. Whatever comes in,
 * the bot stays up, every call it makes to Telegram is within Telegram's limits, and no order goes out without a
 * trader's Confirm. The inputs follow from the seed (`FUZZ_SEED` to replay one), which every failure names.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import { commands } from "../src/kernel/ui/commands.js"
import type { ChatRef, Person, StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { group, reader, startRig, stranger, trader } from "./harness.js"
import type { Rig } from "./harness.js"
import { beyondLimits } from "./limits.js"

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_615)
const INPUTS = 10_000
/** updates in flight at once */
const BATCH = 50

/** mulberry32: small, fast and the same on every machine */
const prng = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  const int = (max: number) => Math.floor(next() * max)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!
  return { next, int, pick, chance: (p: number) => next() < p }
}
type Random = ReturnType<typeof prng>

const CODE_POINTS = [
  "\u0000", "\t", "\r", "\n", "\u0085", "\u2028", "\u202E", "\u2066", "\u200B", "\u200D", "\uFEFF", "\u0301", "\uD800", "\uDFFF",
  "😀", "👩‍💻", "ß", "İ", "Ω", "中", "٣", "\u00A0", "<", ">", "&", "*", "_", "`", "[", "]", "|", "@", "=", "+", "-", "\"", "'", ";", "/"
]

const randomText = (random: Random, length: number): string => {
  let text = ""
  for (let i = 0; i < length; i++) text += random.chance(0.6) ? String.fromCharCode(97 + random.int(26)) : random.pick(CODE_POINTS)
  return text
}

const NUMBERS = [
  "0", "-1", "1", "0.01", "65000", "1e308", "1E+99999", "1E-8", "NaN", "Infinity", "-0", "9007199254740993",
  `0.${"0".repeat(65)}1`, "9".repeat(400), "٣", "1,5", "0x10", ".5", "5.", "+5"
]
const WORDS = [
  "btc", "eth", "BTCUSDT", "cmt_solusdt", "ETH/USDT", "btx", "zzzzqq", "csv", "volume", "gainers", "losers", "deposit", "withdraw",
  "usdt", "2", "24h", "7d", "90m", "2w", "2024-05-01", "2024-02-30", "1999-12-31", "9999999d", "2024-05-01T12:30", "cross",
  "isolated", "open_long", "close_short", "market", "@", "tp", "sl", "post", "fok", "ioc", "8100000001", "constructor", "__proto__"
]

const token = (random: Random): string => {
  const kind = random.int(10)
  if (kind < 4) return random.pick(WORDS)
  if (kind < 6) return random.pick(NUMBERS)
  if (kind < 8) return randomText(random, 1 + random.int(12))
  if (kind < 9) return "x".repeat(100 + random.int(3_000))
  return randomText(random, 30 + random.int(200))
}

const SIDES = ["open_long", "open_short", "close_long", "close_short"]

/** An order line: well formed and within the market's bounds more often than not, else anything. */
const orderLine = (random: Random): string => {
  if (random.chance(0.6)) {
    return `${random.pick(SIDES)} ${random.pick(["0.01", "0.010", "1", "0.5"])} ${random.chance(0.8) ? `@ ${random.pick(["50000", "3000", "65000.5", "1"])}` : "market"}`
  }
  return [
    random.pick([...SIDES, "open-long", "buy"]),
    random.pick(NUMBERS),
    ...(random.chance(0.7) ? ["@", random.pick(NUMBERS)] : ["market"]),
    ...(random.chance(0.3) ? [random.pick(["post", "fok", "ioc", "tp", "sl"]), random.pick(NUMBERS)] : []),
    ...(random.chance(0.1) ? [token(random)] : [])
  ].join(" ")
}

const NAMES = [...commands().map((command) => command.name), "quit", "Tickers", "order_", "bills2"]
const EXAMPLES = commands().flatMap((command) => command.examples)

/** A message as a user could send it (Telegram takes at most 4,096 characters). */
const commandLine = (random: Random): string => {
  const kind = random.int(20)
  if (kind === 0) return randomText(random, 1 + random.int(60))
  // a command as the help shows it, now and then with a word more
  if (kind < 9) {
    // exports are few: each reads thousands of bills
    const example = random.pick(EXAMPLES)
    const line = example.includes("csv") && random.chance(0.8) ? example.replace(" csv", "") : example
    return `${line}${random.chance(0.3) ? ` ${token(random)}` : ""}`
  }
  if (kind < 12) {
    const lines = Array.from({ length: 1 + random.int(random.chance(0.1) ? 25 : 4) }, () => `${random.pick(["\n", ";", "\n\n"])}${orderLine(random)}`)
    const market = random.pick(["btc", "eth", "ETHUSDT", "btx", "cmt_btcusdt", token(random)])
    return `/order ${market}${random.chance(0.2) ? ` ${random.pick(["cross", "isolated"])}` : ""}${lines.join("")}`.slice(0, 4_096)
  }
  const name = random.pick(NAMES)
  const target = random.chance(0.1) ? random.pick(["@tradedesk_bot", "@another_bot", "@TRADEDESK_BOT"]) : ""
  const separator = random.chance(0.05) ? random.pick([",", ".", "-", ""]) : " "
  const args = Array.from({ length: random.int(5) }, () => token(random))
  return `/${name}${target}${separator}${args.join(random.pick([" ", "  ", "\t"]))}`.slice(0, 4_096)
}

/** Data a client could send with a press: made by the bot but changed, or made up. */
const forgedData = (random: Random, real: ReadonlyArray<string>): string => {
  const original = real.length === 0 ? "c|abcd" : random.pick(real)
  switch (random.int(8)) {
    case 0:
      return original.slice(0, random.int(original.length + 1))
    case 1: {
      const at = random.int(original.length)
      return `${original.slice(0, at)}${randomText(random, 1)}${original.slice(at + 1)}`
    }
    case 2:
      return `${original}|${token(random)}`.slice(0, 64)
    case 3:
      return random.pick(["c", "x"]) + "|" + randomText(random, 4 + random.int(12))
    case 4:
      return `k|cmt_${"a".repeat(random.int(120))}`
    case 5:
      return random.pick(["t|9|0|", "t|0|-1|", "b||99||||0", "b|||zzzzzzzzzzz||0", "o|0|cmt_btc\nusdt", "a|0|1e5||", "c|", "", "|||", "k|"])
    case 6:
      return randomText(random, random.int(80))
    default:
      return `${random.pick(["t", "k", "o", "b", "a", "c", "x"])}|${Array.from({ length: random.int(6) }, () => random.pick(["", "0", "zz", "-1", randomText(random, 3)])).join("|")}`
  }
}

// ── the run ─────────────────────────────────────────────────────────────────────────────────────────────────────────

const TRADERS: ReadonlyArray<Person> = [trader, ...Array.from({ length: 4 }, (_, i) => ({ id: trader.id + 1 + i, first_name: `Trader${i}` }))]
const READERS: ReadonlyArray<Person> = [reader, ...Array.from({ length: 4 }, (_, i) => ({ id: reader.id + 1 + i, first_name: `Reader${i}` }))]
const STRANGERS: ReadonlyArray<Person> = [stranger, { id: stranger.id + 1, first_name: "Mallory" }]

/** Who writes or presses, and where: their private chat with the bot unless a group is given. */
const actor = (random: Random): readonly [Person, ChatRef | undefined] => {
  const kind = random.int(10)
  if (kind < 4) return [random.pick(TRADERS), undefined]
  if (kind < 6) return [random.pick(READERS), undefined]
  if (kind < 7) return [random.pick(STRANGERS), undefined]
  return [random.pick([...TRADERS, ...READERS, ...STRANGERS]), group]
}

let rig: Rig
const rejections: Array<unknown> = []
const onRejection = (reason: unknown) => rejections.push(reason)

beforeAll(async () => {
  process.on("unhandledRejection", onRejection)
  // no pacing: ten thousand replies in seconds
  rig = await startRig({
    access: { readers: new Set(READERS.map((person) => person.id)), traders: new Set(TRADERS.map((person) => person.id)), publicMarket: false },
    pacing: { perChatIntervalMs: 0, groupIntervalMs: 0, globalPerSecond: 1_000_000 }
  })
})

afterAll(async () => {
  await rig?.close()
  process.off("unhandledRejection", onRejection)
})

describe(`fuzz (seed ${SEED}, replay with FUZZ_SEED=${SEED})`, () => {
  it("stays up, answers within Telegram's limits and places nothing without a trader's Confirm", { timeout: 300_000 }, async () => {
    const random = prng(SEED)
    const confirmedByTrader = new Set<string>()
    const updates: Array<number> = []
    let traderConfirms = 0
    const before = rig.simulator.counters().batchOrders
    const firstCall = rig.api.calls.length

    /** The bot's text messages in a chat, the newest last: what a press can come from. */
    const pressable = (chat: number): ReadonlyArray<StoredMessage> =>
      rig.api.messages(chat).slice(-40).filter((message) => message.from === undefined && message.document === undefined)

    for (let sent = 0; sent < INPUTS; sent += BATCH) {
      const batch: Array<number> = []
      for (let i = 0; i < Math.min(BATCH, INPUTS - sent); i++) {
        const [person, chat] = actor(random)
        const chatId = chat?.id ?? person.id
        const messages = pressable(chatId)
        if (messages.length === 0 || random.chance(0.65)) {
          batch.push(rig.api.sendText(person, commandLine(random), chat))
          continue
        }
        const withButtons = messages.filter((message) => message.replyMarkup !== undefined)
        const message = random.pick(withButtons.length > 0 && random.chance(0.8) ? withButtons : messages)
        const real = message.replyMarkup?.inline_keyboard.flat().flatMap((button) => ("callback_data" in button ? [button.callback_data] : [])) ?? []
        const data = real.length > 0 && random.chance(0.7) ? random.pick(real) : forgedData(random, real)
        const decoded = CallbackData.decode(data)
        if (TRADERS.includes(person) && decoded?._tag === "Confirm") {
          traderConfirms++
          // only a press in a trader's own chat, on their own preview, may place it
          if (chat === undefined) confirmedByTrader.add(`${person.id}:${decoded.id}`)
        }
        batch.push(rig.api.pressData(person, message, data))
      }
      updates.push(...batch)
      await rig.api.taken(10_000)
      await rig.trade.drain(20_000)
    }

    await rig.trade.drain(60_000)
    const failure = `seed ${SEED}`
    const handled = new Map(rig.logs.filter((line) => line.event === "update").map((line) => [line.update!, line]))
    expect(updates.filter((id) => !handled.has(id)), `${failure}: updates never handled`).toEqual([])
    // a fault is an error a handler did not expect: the user got "something went wrong"
    const faults = updates.map((id) => handled.get(id)!).filter((line) => line.outcome === "fault")
    expect(faults.map((line) => `${line.kind}: ${line.outcome} ${line.detail}`), `${failure}: faults`).toEqual([])
    expect(rejections, `${failure}: unhandled rejections`).toEqual([])

    const calls = rig.api.calls.slice(firstCall)
    expect(calls.flatMap(beyondLimits), `${failure}: calls outside Telegram's limits`).toEqual([])

    // every batch the exchange took was confirmed by the trader whose preview it was, in their chat, and taken once
    const ownerOf = new Map<string, unknown>()
    for (const call of calls) {
      const buttons = (call.payload.reply_markup as { inline_keyboard?: ReadonlyArray<ReadonlyArray<{ callback_data?: string }>> } | undefined)?.inline_keyboard?.flat() ?? []
      for (const button of buttons) {
        const data = CallbackData.decode(button.callback_data ?? "")
        if (data?._tag === "Confirm" && !ownerOf.has(data.id)) ownerOf.set(data.id, call.payload.chat_id)
      }
    }
    const placed = rig.simulator.placedClientOids(rig.simulator.accounts.agent.apiKey).filter((oid) => oid.startsWith("tdb"))
    expect(new Set(placed).size, failure).toBe(placed.length)
    const previews = new Set(placed.map((oid) => /^tdb(.+)-\d+$/.exec(oid)![1]!))
    expect([...previews].filter((id) => !confirmedByTrader.has(`${String(ownerOf.get(id))}:${id}`)), `${failure}: placed without its trader's Confirm`).toEqual([])
    expect(rig.simulator.counters().batchOrders - before, failure).toBeLessThanOrEqual(traderConfirms)

    // what the run went through, so a change that made it trivial shows
    const outcomes = new Map<string, number>()
    for (const id of updates) outcomes.set(handled.get(id)!.outcome ?? "?", (outcomes.get(handled.get(id)!.outcome ?? "?") ?? 0) + 1)
    for (const outcome of ["ok", "usage", "preview", "placed", "csv", "denied:unknown_button", "denied:not_allowed", "unknown_symbol"]) {
      expect(outcomes.get(outcome) ?? 0, `${failure}: no ${outcome} in ${JSON.stringify([...outcomes])}`).toBeGreaterThan(0)
    }

    // and it still serves
    expect((await rig.say(trader, "/help")).outcome).toBe("ok")
  })
})
