/**
 * Admission, after authorization and before any feature: how often one user, and one group chat, may have the bot act
 * (`BOT_USER_COMMANDS_PER_MINUTE`), and whether the chat's replies have room. An update over the limit is answered
 * with one "slow down" a minute per user (or group) and nothing else is done: no exchange call, a pressed button only
 * answered so it stops spinning. An update to a chat whose reply line is full is refused before any exchange call,
 * the chat told it is busy as a refused reply is; a Confirm is never refused so (its outcome always has room).
 *
 * The count is a sliding minute, estimated from this minute's and the last minute's counts (two numbers per user or
 * chat); the memory is bounded: it forgets the users and chats seen least lately first. With Redis the tallies are
 * the bot's, over all its processes (`SharedAdmission`, `RedisAdmission.ts`: the same verdicts, on Redis's
 * clock), so a replica cannot multiply the limit.
 */
import { Context, Layer, Option } from "effect"
import type { Middleware } from "telegraf"
import * as CallbackData from "../ui/CallbackData.js"
import type { BotContext } from "../telegram/BotContext.js"
import { PacedTelegram } from "../telegram/PacedTelegram.js"
import { essential } from "../telegram/Pacer.js"

interface Tally {
  /** epoch ms: the start of the current window */
  start: number
  /** updates admitted in the window before it */
  previous: number
  /** updates admitted in this window */
  current: number
  /** when this user or chat was last told to slow down */
  toldAt: number | undefined
}

/** Whether an update goes on; when not, how long until one would, and whether to say so this time. */
export type Verdict =
  | { readonly _tag: "Admitted" }
  | { readonly _tag: "Limited"; readonly retryAfterMillis: number; readonly tell: boolean }

const ADMITTED: Verdict = { _tag: "Admitted" }

/** Tallies the bot's processes share: the verdict of `Admission.admit` over all of them, in one step on the store. */
export interface SharedTallies {
  /** Never fails: when the store cannot be asked, this process decides alone (at a share of the limit). */
  readonly admit: (userId: number | undefined, chatId: number | undefined, perMinute: number, windowMillis: number) => Promise<Verdict>
}

/** The tallies shared with the bot's other processes; none: each process keeps its own. */
export class SharedAdmission extends Context.Tag("@tradedesk/bot/SharedAdmission")<SharedAdmission, Option.Option<SharedTallies>>() {}

export const layerNone: Layer.Layer<SharedAdmission> = Layer.succeed(SharedAdmission, Option.none())

export class Admission {
  /** user or chat → its tally, in the order last seen (oldest first) */
  private readonly tallies = new Map<string, Tally>()
  /** once set, these decide instead of this process's tallies */
  private shared: SharedTallies | undefined = undefined

  constructor(
    /** updates a minute per user and per group chat; infinite: no limit */
    readonly perMinute: number,
    private readonly now: () => number,
    private readonly capacity = 10_000,
    private readonly windowMillis = 60_000
  ) {}

  /** From now on the tallies of all the bot's processes decide (`decide`), not this process's. */
  share(tallies: SharedTallies): void {
    this.shared = tallies
  }

  /** The verdict on an update, as `admit` says: over the shared tallies once shared, else this process's. */
  decide(userId: number | undefined, chatId: number | undefined): Verdict | Promise<Verdict> {
    if (this.shared === undefined || !Number.isFinite(this.perMinute)) return this.admit(userId, chatId)
    return this.shared.admit(userId, chatId, this.perMinute, this.windowMillis)
  }

  /** users and chats remembered (at most the capacity) */
  get remembered(): number {
    return this.tallies.size
  }

  /**
   * Counts an update of `userId` in `chatId` (a group's; none for a private chat, where the user is the chat), or
   * refuses it when either is at the limit; a refused update counts for nothing.
   */
  admit(userId: number | undefined, chatId: number | undefined): Verdict {
    if (!Number.isFinite(this.perMinute)) return ADMITTED
    const now = this.now()
    const tallies = [
      ...(userId === undefined ? [] : [this.tallyOf(`user:${userId}`, now)]),
      ...(chatId === undefined ? [] : [this.tallyOf(`chat:${chatId}`, now)])
    ]
    const full = tallies.find((tally) => this.weighted(tally, now) + 1 > this.perMinute)
    if (full === undefined) {
      for (const tally of tallies) tally.current++
      return ADMITTED
    }
    const tell = full.toldAt === undefined || now - full.toldAt >= this.windowMillis
    if (tell) full.toldAt = now
    return { _tag: "Limited", retryAfterMillis: Math.max(...tallies.map((tally) => this.retryAfter(tally, now))), tell }
  }

  /** The tally of a key, moved to the current window and to the end of the order; the oldest forgotten past capacity. */
  private tallyOf(key: string, now: number): Tally {
    const tally = this.tallies.get(key) ?? { start: now, previous: 0, current: 0, toldAt: undefined }
    const windows = Math.floor((now - tally.start) / this.windowMillis)
    if (windows > 0) {
      tally.previous = windows === 1 ? tally.current : 0
      tally.current = 0
      tally.start += windows * this.windowMillis
    }
    this.tallies.delete(key)
    this.tallies.set(key, tally)
    for (const [oldest] of this.tallies) {
      if (this.tallies.size <= this.capacity) break
      this.tallies.delete(oldest)
    }
    return tally
  }

  /** The updates counted in the minute before `now`: the last window's weighted by how much of it is still in. */
  private weighted(tally: Tally, now: number): number {
    return tally.previous * (1 - (now - tally.start) / this.windowMillis) + tally.current
  }

  /** How long, with no update admitted meanwhile, until one more would be. */
  private retryAfter(tally: Tally, now: number): number {
    const room = this.perMinute - 1
    const elapsed = now - tally.start
    if (tally.current <= room && tally.previous > 0) {
      // within this window, as the last one's weight fades
      const at = this.windowMillis * (1 - (room - tally.current) / tally.previous)
      if (at < this.windowMillis) return Math.max(0, at - elapsed)
    }
    // in the next window, as this one's fades
    const next = tally.current <= room ? 0 : this.windowMillis * (1 - room / tally.current)
    return this.windowMillis - elapsed + next
  }
}

/** The reply to an update over the limit. */
export const slowDownText = (perMinute: number, retryAfterMillis: number): string =>
  `Slow down: the bot takes at most ${perMinute} commands and button presses a minute from one user or group. ` +
  `Try again in ${Math.max(1, Math.ceil(retryAfterMillis / 1000))} s; until then nothing is done.`

/**
 * Whether an update counts against the limit: commands, button presses and a private chat's texts (answered with a
 * hint) do; a Confirm does not (previews and orders a minute bound it, and a refused one would leave the trader
 * guessing), nor a group's chatter, which the bot ignores.
 */
const counts = (ctx: BotContext): boolean => {
  const data = ctx.button
  if (ctx.callbackQuery !== undefined) return !CallbackData.carriesOutWrite(data)
  if (ctx.chat === undefined || ctx.chat.type === "private") return true
  const message = ctx.message
  return message !== undefined && "text" in message && message.text.startsWith("/")
}

/**
 * The middleware: counts each update that passed authorization (as `counts` says), answers one over the limit, and
 * refuses one whose chat has no room for its reply, before any feature (and so any exchange call).
 */
export const admit = (admission: Admission): Middleware<BotContext> => async (ctx, next) => {
  if (!counts(ctx)) return next()
  const verdict = await admission.decide(ctx.from?.id, ctx.chat === undefined || ctx.chat.type === "private" ? undefined : ctx.chat.id)
  if (verdict._tag === "Limited") {
    ctx.note("limited", `over ${admission.perMinute} a minute${verdict.tell ? "; told to slow down" : ""}`, verdict.tell ? "warn" : "info")
    const text = slowDownText(admission.perMinute, verdict.retryAfterMillis)
    if (ctx.callbackQuery !== undefined) {
      await ctx.answerCbQuery(verdict.tell ? text : undefined).catch(() => undefined)
    } else if (verdict.tell) {
      // the one answer to every update refused this minute: like a busy notice, it goes first and is never refused
      // for room (the replies to the burst it ends may fill the chat's line); a failure changes nothing
      await essential(() => ctx.reply(text)).catch(() => undefined)
    }
    return
  }
  if (ctx.chat !== undefined && ctx.telegram instanceof PacedTelegram && !CallbackData.answersConfirmation(ctx.button)) {
    try {
      await ctx.telegram.ensureRoom(ctx.chat.id)
    } catch (error) {
      // a press is answered either way, or its button keeps spinning; the refusal is logged as `refused`
      if (ctx.callbackQuery !== undefined) await ctx.answerCbQuery().catch(() => undefined)
      throw error
    }
  }
  return next()
}
