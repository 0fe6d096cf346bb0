/**
 * Outgoing message pacing under Telegram's limits: about one message per second in a private chat, about 20 a minute
 * in a group, and about 30 per second overall. Messages wait in a line per chat; a chat whose turn has come takes the
 * next free slot over all chats, so a busy chat never holds up the others.
 *
 * The rate over all chats is kept exactly, in a sliding window: no span of a second holds more than `globalPerSecond`
 * messages at Telegram, wherever on its way a message was held (a busy event loop, a slow connection). A message
 * sent through `send` counts from the moment it goes until a second after Telegram's answer (it reached Telegram
 * somewhere in between), at most `MAX_IN_FLIGHT_MS` unanswered; messages also go at least `1 / globalPerSecond` apart.
 *
 * What waits is bounded in messages and bytes, per chat and over all chats. A reply waiting in a chat is replaced by
 * a newer reply to the same command there (the latest wins), so repeating a command adds nothing to the line. A reply
 * that finds no room is refused, never lost without a word: the chat is told the bot is busy (at most once in a
 * while). A placement's outcome (`essential`) is never refused nor replaced, and goes before the replies waiting, as
 * does a busy notice. A chat action (`typing…`) never waits and never holds a message back: it goes only when no
 * message wants the slot, else it is skipped.
 *
 * The slots over all chats and each chat's turn can also be counted in a shared budget (`PaceBudget`: Redis, for the
 * bot's processes together); a message then goes when both this pacer and the budget have its slot free.
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { randomUUID } from "node:crypto"

export interface PacerOptions {
  /** minimum time between two messages to a private chat (default 1000) */
  readonly perChatIntervalMs?: number
  /** minimum time between two messages to a group or channel (default 3000: Telegram allows about 20 a minute) */
  readonly groupIntervalMs?: number
  /** messages per second over all chats (default 30) */
  readonly globalPerSecond?: number
  /** messages that may wait for one chat (default 20) */
  readonly chatBacklog?: number
  /** bytes that may wait for one chat (default 2 MiB) */
  readonly chatBacklogBytes?: number
  /** messages that may wait over all chats (default 5,000: under three minutes at 30 per second) */
  readonly backlog?: number
  /** bytes that may wait over all chats (default 16 MiB) */
  readonly backlogBytes?: number
  /** a reply sent later than this after its update came says so, with the time of its data (default 5,000) */
  readonly lateAfterMs?: number
  /** a chat is told the bot is busy at most once in this time (default 30,000) */
  readonly busyNoticeIntervalMs?: number
}

/** A limit that is not free yet: the chat's turn or the slot over all chats, and how long until it is. */
export interface PaceWait {
  readonly scope: "chat" | "all"
  readonly millis: number
}

/**
 * Slots counted beyond this pacer, shared with the bot's other processes. `take` either takes the slot of a message
 * to `chat` at `now` (answering none), counting it as `id` in the window over all chats until it is settled, or says
 * what to wait for; it never rejects and answers in bounded time.
 */
export interface PaceBudget {
  readonly take: (chat: string | undefined, chatIntervalMs: number, globalIntervalMs: number, now: number, id: string) => Promise<PaceWait | undefined>
  /** The message `id` was answered: it leaves the window a second from now. Never rejects. */
  readonly settle: (id: string) => Promise<void>
  /** Holds `chat`'s next slot (or every chat's, with none) `millis` from `now`, for every process (a 429). Never rejects. */
  readonly pause: (chat: string | undefined, millis: number, now: number) => Promise<void>
}

/** A message counts against the window this long at most while unanswered: beyond, it is taken as answered. */
export const MAX_IN_FLIGHT_MS = 30_000

/** The span the rate over all chats is counted in. */
const WINDOW_MS = 1_000

/** One message that wants to go out. */
export interface Outgoing {
  readonly chat: string | undefined
  /** a waiting message with the same key in the same chat is replaced by this one; none: never replaced */
  readonly key: string | undefined
  /** its size, counted against the bounds */
  readonly bytes: number
}

/** A message not sent: too many messages were waiting, for its chat or over all chats. */
export class ReplyRefused extends Error {
  constructor(
    readonly chat: string,
    readonly scope: "chat" | "all",
    readonly waiting: number,
    /** when there should be room again */
    readonly retryAfterSeconds: number,
    /**
     * sends the busy notice to the chat in its own slot (`call`, given the slot's time, is the sending); none when the
     * chat was told lately (or a thousand notices wait)
     */
    readonly notice: (<A>(call: (at: number) => Promise<A>) => Promise<A>) | undefined
  ) {
    super(`reply to chat ${chat} refused: ${waiting} messages waiting ${scope === "chat" ? "for the chat" : "over all chats"}; ` +
      (notice === undefined ? "the chat is not told again so soon" : `the chat is told to try again in ${retryAfterSeconds} s`))
  }
}

/** A waiting message replaced by a newer one with the same key (a newer reply to the same command). */
export class ReplySuperseded extends Error {
  constructor(readonly chat: string) {
    super(`reply to chat ${chat} replaced by a newer reply to the same command`)
  }
}

/** A chat action not sent: no slot was free at once. */
export class ChatActionSkipped extends Error {
  constructor(readonly chat: string | undefined) {
    super(`chat action to ${chat ?? "an inline message"} skipped: no free slot`)
  }
}

const essentialScope = new AsyncLocalStorage<true>()

/**
 * Runs work whose messages are never refused nor replaced, and go first: a placement's outcome is the only record the
 * user gets of orders that may be live. Telegram calls made inside `work` (however deep) are marked, as the pacer sees
 * them.
 */
export const essential = <A>(work: () => Promise<A>): Promise<A> => essentialScope.run(true, work)

/** Group and channel ids are negative; a channel may also be named `@name`. */
const isGroup = (chat: string) => chat.startsWith("-") || chat.startsWith("@")

/** busy notices waiting at most; beyond, a refusal is only logged (a notice is tiny, but chats are many) */
const MAX_NOTICES = 1_000

/** chats remembered for their last message or notice before forgetting those long past */
const REMEMBERED_CHATS = 10_000

/** A message sent, counted against the window until `until` (later while unanswered), and in the budget's. */
interface Sent {
  until: number
  readonly settle: (() => void) | undefined
}

/** A slot handed out: its time, and the message's place in the window. */
interface Granted {
  readonly at: number
  readonly sent: Sent
}

interface Waiting {
  readonly key: string | undefined
  readonly bytes: number
  /** a placement's outcome or a busy notice: before ordinary messages, never refused or replaced */
  readonly urgent: boolean
  /** counted against the bounds (a busy notice is not: it has its own) */
  readonly counted: boolean
  readonly grant: (granted: Granted) => void
  readonly refuse: (error: Error) => void
}

/** The messages waiting for one chat, and when it may have the next one. */
class Line {
  readonly waiting: Array<Waiting> = []
  counted = 0
  bytes = 0
  next = 0
  timer: NodeJS.Timeout | undefined = undefined
  constructor(readonly chat: string, readonly interval: number) {}
}

const first = <A>(set: ReadonlySet<A>): A | undefined => {
  for (const item of set) return item
  return undefined
}

export class Pacer {
  readonly lateAfterMs: number
  private readonly perChat: number
  private readonly perGroup: number
  private readonly globalInterval: number
  private readonly perWindow: number
  private readonly chatBacklog: number
  private readonly chatBacklogBytes: number
  private readonly backlog: number
  private readonly backlogBytes: number
  private readonly busyNoticeInterval: number
  private readonly lines = new Map<string, Line>()
  /** chats whose turn has come, waiting for a slot over all chats, in the order they became ready */
  private readonly urgentReady = new Set<Line>()
  private readonly ordinaryReady = new Set<Line>()
  private globalNext = 0
  /** the messages counted in the window now (at most `perWindow`) */
  private window: Array<Sent> = []
  private globalTimer: NodeJS.Timeout | undefined = undefined
  private globalTimerAt = 0
  private actionNext = 0
  private messages = 0
  private bytes = 0
  private notices = 0
  private readonly noticed = new Map<string, number>()
  private budget: PaceBudget | undefined = undefined
  /** a slot is being asked of the budget: one at a time, so the pacer's own order holds */
  private asking = false

  constructor(options: PacerOptions = {}, readonly now: () => number = Date.now) {
    this.perChat = options.perChatIntervalMs ?? 1000
    this.perGroup = options.groupIntervalMs ?? 3000
    this.perWindow = options.globalPerSecond ?? 30
    this.globalInterval = WINDOW_MS / this.perWindow
    this.chatBacklog = options.chatBacklog ?? 20
    this.chatBacklogBytes = options.chatBacklogBytes ?? 2 * 1024 * 1024
    this.backlog = options.backlog ?? 5_000
    this.backlogBytes = options.backlogBytes ?? 16 * 1024 * 1024
    this.lateAfterMs = options.lateAfterMs ?? 5_000
    this.busyNoticeInterval = options.busyNoticeIntervalMs ?? 30_000
  }

  /**
   * Sends a message in its slot: `call` (given the slot's time) is the sending, and the message counts against the
   * window until a second after it settles. Rejects as `slot` does, and with `call`'s error.
   */
  async send<A>(outgoing: Outgoing, call: (at: number) => Promise<A>): Promise<A> {
    return this.sending(await this.take(outgoing), call)
  }

  /**
   * Resolves with the time a message may go out, for a message that goes at once and is answered at once (it counts
   * against the window for a second from then). Rejects with `ReplySuperseded` when a newer message with its key
   * takes its place while it waits, and at once with `ReplyRefused` when there is no room for it (unless `essential`).
   */
  async slot(outgoing: Outgoing): Promise<number> {
    return this.sending(await this.take(outgoing), async (at) => at)
  }

  private async sending<A>({ at, sent }: Granted, call: (at: number) => Promise<A>): Promise<A> {
    try {
      return await call(at)
    } finally {
      // Telegram has it by now: a second from here covers wherever it was counted
      sent.until = Math.min(sent.until, this.now() + WINDOW_MS)
      sent.settle?.()
      this.pump()
    }
  }

  private take(outgoing: Outgoing): Promise<Granted> {
    const urgent = essentialScope.getStore() !== undefined
    const line = this.lineOf(outgoing.chat)
    const replacing = urgent || outgoing.key === undefined ? -1 : line.waiting.findIndex((item) => !item.urgent && item.key === outgoing.key)
    const replaced = line.waiting[replacing]
    if (!urgent) {
      const refusal = this.refusal(line, outgoing.bytes, replaced)
      if (refusal !== undefined) return Promise.reject(refusal)
    }
    return new Promise((grant, refuse) => {
      const item: Waiting = { key: outgoing.key, bytes: outgoing.bytes, urgent, counted: true, grant, refuse }
      if (replaced === undefined) {
        this.enqueue(line, item)
      } else {
        // the newer takes the older's place in the line
        line.waiting[replacing] = item
        this.uncount(line, replaced)
        this.count(line, item)
        replaced.refuse(new ReplySuperseded(line.chat))
      }
      this.pump()
    })
  }

  /**
   * The refusal a reply to `chat` would meet now, for want of room for one more message; none when it would fit. As
   * with a refused reply, the chat's busy notice is queued (unless it was told lately): asked before the work whose
   * reply it would be, so that work is not done for nothing.
   */
  room(chat: string): ReplyRefused | undefined {
    return this.refusal(this.lineOf(chat), 0, undefined)
  }

  /**
   * Whether a chat action may go out now: only when its chat has nothing waiting and its turn has come, no message
   * waits for a slot over all chats and none is due, and the actions' own budget (as many per second as messages)
   * has room. It takes neither the chat's turn nor a message's slot, so it never holds a message back.
   */
  tryAction(chat: string | undefined): boolean {
    const now = this.now()
    const line = chat === undefined ? undefined : this.lines.get(chat)
    if (line !== undefined && (line.waiting.length > 0 || line.next > now)) return false
    if (this.urgentReady.size > 0 || this.ordinaryReady.size > 0 || this.globalNext > now || this.actionNext > now || this.windowFreeAt(now) > now) return false
    this.actionNext = now + this.globalInterval
    return true
  }

  /**
   * After Telegram answered 429 for a chat (or for all, with none): its next message waits at least this long, in the
   * bot's other processes too when a budget is shared (Telegram's limit is the bot's, not a process's).
   */
  pause(chat: string | undefined, millis: number): void {
    const now = this.now()
    const until = now + millis
    void this.budget?.pause(chat, millis, now)
    if (chat === undefined) {
      this.globalNext = Math.max(this.globalNext, until)
    } else {
      const line = this.lineOf(chat)
      line.next = Math.max(line.next, until)
      this.schedule(line)
    }
    this.pump()
  }

  /** From now on every slot is also taken from `budget` (shared with the bot's other processes). */
  share(budget: PaceBudget): void {
    this.budget = budget
  }

  private lineOf(chat: string | undefined): Line {
    const id = chat ?? ""
    let line = this.lines.get(id)
    if (line === undefined) {
      if (this.lines.size >= REMEMBERED_CHATS) this.forget()
      line = new Line(id, chat === undefined ? 0 : isGroup(chat) ? this.perGroup : this.perChat)
      this.lines.set(id, line)
    }
    return line
  }

  /** Messages waiting over all chats (busy notices aside), as the backlog bound counts them. */
  get waiting(): number {
    return this.messages
  }

  /** Forgets the chats with nothing waiting whose turn has come: they would start afresh anyway. */
  private forget(): void {
    const now = this.now()
    for (const [id, line] of this.lines) if (line.waiting.length === 0 && line.next <= now) this.lines.delete(id)
    for (const [id, at] of this.noticed) if (now - at >= this.busyNoticeInterval) this.noticed.delete(id)
  }

  /** Why a message of `bytes` does not fit (with `replaced` gone), or none. One message alone always fits. */
  private refusal(line: Line, bytes: number, replaced: Waiting | undefined): ReplyRefused | undefined {
    // a replacement adds no message, only the difference in bytes
    const adding = replaced === undefined
    const others = adding ? 0 : 1
    const added = bytes - (replaced?.bytes ?? 0)
    const chatWaiting = line.counted - others
    if (chatWaiting > 0 && ((adding && chatWaiting >= this.chatBacklog) || line.bytes + added > this.chatBacklogBytes)) {
      const seconds = Math.max(1, Math.ceil((chatWaiting * line.interval) / 1000))
      return new ReplyRefused(line.chat, "chat", chatWaiting, seconds, this.notice(line))
    }
    const allWaiting = this.messages - others
    if (allWaiting > 0 && ((adding && allWaiting >= this.backlog) || this.bytes + added > this.backlogBytes)) {
      const seconds = Math.max(1, Math.ceil((allWaiting * this.globalInterval) / 1000))
      return new ReplyRefused(line.chat, "all", allWaiting, seconds, this.notice(line))
    }
    return undefined
  }

  /**
   * The sending of a busy notice for the chat in its slot, unless it was told lately or too many notices wait. The
   * slot is in line from now; until it is sent, the notice counts against the window as unanswered.
   */
  private notice(line: Line): (<A>(call: (at: number) => Promise<A>) => Promise<A>) | undefined {
    const now = this.now()
    const last = this.noticed.get(line.chat)
    if ((last !== undefined && now - last < this.busyNoticeInterval) || this.notices >= MAX_NOTICES) return undefined
    this.noticed.set(line.chat, now)
    this.notices++
    const slot = new Promise<Granted>((grant, refuse) => {
      const granted = (taken: Granted) => {
        this.notices--
        grant(taken)
      }
      this.enqueue(line, { key: undefined, bytes: 0, urgent: true, counted: false, grant: granted, refuse })
      this.pump()
    })
    return async (call) => this.sending(await slot, call)
  }

  /** Urgent messages go after the urgent ones already waiting, before every ordinary one. */
  private enqueue(line: Line, item: Waiting): void {
    if (item.urgent) {
      const at = line.waiting.findIndex((waiting) => !waiting.urgent)
      line.waiting.splice(at === -1 ? line.waiting.length : at, 0, item)
    } else {
      line.waiting.push(item)
    }
    this.count(line, item)
    this.schedule(line)
  }

  private count(line: Line, item: Waiting): void {
    if (!item.counted) return
    line.counted++
    line.bytes += item.bytes
    this.messages++
    this.bytes += item.bytes
  }

  private uncount(line: Line, item: Waiting): void {
    if (!item.counted) return
    line.counted--
    line.bytes -= item.bytes
    this.messages--
    this.bytes -= item.bytes
  }

  /** Puts a chat whose turn has come in line for a slot over all chats (urgent first), or wakes it when it comes. */
  private schedule(line: Line): void {
    const head = line.waiting[0]
    const wait = line.next - this.now()
    const ready = head === undefined || wait > 0 ? undefined : head.urgent ? this.urgentReady : this.ordinaryReady
    // a chat already in the right line keeps its place there
    if (ready !== this.urgentReady) this.urgentReady.delete(line)
    if (ready !== this.ordinaryReady) this.ordinaryReady.delete(line)
    if (ready !== undefined) {
      ready.add(line)
    } else if (head !== undefined) {
      line.timer ??= setTimeout(() => {
        line.timer = undefined
        this.schedule(line)
        this.pump()
      }, Math.ceil(wait)).unref()
    }
  }

  /** Hands out the free slots over all chats, one chat at a time, and sets a timer for the next one. */
  private pump(): void {
    while (!this.asking) {
      const line = first(this.urgentReady) ?? first(this.ordinaryReady)
      if (line === undefined) return
      const now = this.now()
      const free = Math.max(this.globalNext, this.windowFreeAt(now))
      if (free > now) {
        // an answer may bring the time forward: the timer is set again for the earlier one
        if (this.globalTimer !== undefined && this.globalTimerAt > free) {
          clearTimeout(this.globalTimer)
          this.globalTimer = undefined
        }
        if (this.globalTimer === undefined) {
          this.globalTimerAt = free
          this.globalTimer = setTimeout(() => {
            this.globalTimer = undefined
            this.pump()
          }, Math.ceil(free - now)).unref()
        }
        return
      }
      if (this.budget === undefined) {
        this.grant(line, now)
      } else {
        this.ask(this.budget, line, now)
      }
    }
  }

  /** Asks the shared budget for the line's slot; grants it when taken, else waits for what the budget names. */
  private ask(budget: PaceBudget, line: Line, now: number): void {
    this.asking = true
    const id = randomUUID()
    void budget.take(line.chat === "" ? undefined : line.chat, line.interval, this.globalInterval, now, id).then((wait) => {
      this.asking = false
      const answered = this.now()
      if (wait === undefined) {
        // the line still has a head: a waiting message leaves it only here, and a replacement takes its place
        this.grant(line, answered, () => void budget.settle(id))
      } else if (wait.scope === "chat") {
        line.next = Math.max(line.next, answered + wait.millis)
        this.schedule(line)
      } else {
        this.globalNext = Math.max(this.globalNext, answered + wait.millis)
      }
      this.pump()
    })
  }

  /**
   * When the window has room for one more message: now, or when the earliest of the messages counted leaves it
   * (an answer may bring that forward).
   */
  private windowFreeAt(now: number): number {
    if (this.window.some((sent) => sent.until <= now)) this.window = this.window.filter((sent) => sent.until > now)
    if (this.window.length < this.perWindow) return now
    return this.window.reduce((earliest, sent) => Math.min(earliest, sent.until), Infinity)
  }

  private grant(line: Line, now: number, settle?: () => void): void {
    const item = line.waiting.shift()!
    this.uncount(line, item)
    // counted from now, not from when the slot was due: two messages are never closer than the interval
    this.globalNext = now + this.globalInterval
    line.next = now + line.interval
    const sent: Sent = { until: now + MAX_IN_FLIGHT_MS + WINDOW_MS, settle }
    this.window.push(sent)
    this.schedule(line)
    item.grant({ at: now, sent })
  }
}
