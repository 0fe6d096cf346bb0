/**
 * Outgoing message pacing under Telegram's limits: about one message per second in a private chat, about 20 a minute
 * in a group, and about 30 per second overall. A send first waits for its chat's turn, then for a global slot; global
 * slots are taken only by sends whose chat turn has come, so a busy chat never holds up the others. A chat whose
 * backlog is already long gets no more, nor does any chat when the wait for a global slot is already long: the send
 * is dropped rather than queued without end — except an essential one (a placement's outcome), which waits its turn
 * however long the backlog.
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { setTimeout as sleep } from "node:timers/promises"

export interface PacerOptions {
  /** minimum time between two messages to a private chat (default 1000) */
  readonly perChatIntervalMs?: number
  /** minimum time between two messages to a group or channel (default 3000: Telegram allows about 20 a minute) */
  readonly groupIntervalMs?: number
  /** messages per second over all chats (default 30) */
  readonly globalPerSecond?: number
  /** sends that may wait for one chat's turn; more are dropped (default 20) */
  readonly maxBacklog?: number
  /** longest wait for a slot over all chats; a send that would wait longer is dropped (default 30 000) */
  readonly maxGlobalWaitMs?: number
}

/** A message not sent because its chat already had a long backlog of messages waiting. */
export class ReplyDropped extends Error {
  constructor(readonly chat: string, readonly backlog: number) {
    super(`reply to chat ${chat} dropped: ${backlog} messages already waiting`)
  }
}

const essentialScope = new AsyncLocalStorage<true>()

/**
 * Runs work whose messages are never dropped for a full backlog: a placement's outcome is the only record the user
 * gets of orders that may be live. Telegram calls made inside `work` (however deep) are marked, as the pacer sees them.
 */
export const essential = <A>(work: () => Promise<A>): Promise<A> => essentialScope.run(true, work)

/** Group and channel ids are negative; a channel may also be named `@name`. */
const isGroup = (chat: string) => chat.startsWith("-") || chat.startsWith("@")

export class Pacer {
  private readonly perChat: number
  private readonly perGroup: number
  private readonly globalInterval: number
  private readonly maxBacklog: number
  private readonly maxGlobalWait: number
  private globalNext = 0
  private readonly chatNext = new Map<string, number>()
  private readonly waiting = new Map<string, number>()

  constructor(options: PacerOptions = {}, private readonly now: () => number = Date.now) {
    this.perChat = options.perChatIntervalMs ?? 1000
    this.perGroup = options.groupIntervalMs ?? 3000
    this.globalInterval = 1000 / (options.globalPerSecond ?? 30)
    this.maxBacklog = options.maxBacklog ?? 20
    this.maxGlobalWait = options.maxGlobalWaitMs ?? 30_000
  }

  /** Resolves when a message to `chat` may go out; rejects with `ReplyDropped` when the chat's backlog is full (unless `essential`). */
  async slot(chat: string | undefined): Promise<void> {
    if (chat !== undefined) {
      const backlog = this.waiting.get(chat) ?? 0
      if (backlog >= this.maxBacklog && essentialScope.getStore() === undefined) throw new ReplyDropped(chat, backlog)
      const now = this.now()
      const turn = Math.max(now, this.chatNext.get(chat) ?? 0)
      this.chatNext.set(chat, turn + (isGroup(chat) ? this.perGroup : this.perChat))
      if (this.chatNext.size > 10_000) this.prune(now)
      if (turn > now) {
        this.waiting.set(chat, backlog + 1)
        try {
          await sleep(turn - now)
        } finally {
          const left = (this.waiting.get(chat) ?? 1) - 1
          if (left === 0) this.waiting.delete(chat)
          else this.waiting.set(chat, left)
        }
      }
    }
    const now = this.now()
    const at = Math.max(now, this.globalNext)
    // many chats at once (a flood of strangers) must not queue replies without end behind which a trader waits
    if (at - now > this.maxGlobalWait && essentialScope.getStore() === undefined) {
      throw new ReplyDropped("all chats", Math.round((at - now) / this.globalInterval))
    }
    this.globalNext = at + this.globalInterval
    if (at > now) await sleep(at - now)
  }

  /** After Telegram answered 429 for a chat: its next message waits at least this long. */
  pause(chat: string | undefined, millis: number): void {
    const until = this.now() + millis
    if (chat === undefined) this.globalNext = Math.max(this.globalNext, until)
    else this.chatNext.set(chat, Math.max(this.chatNext.get(chat) ?? 0, until))
  }

  private prune(now: number): void {
    for (const [chat, next] of this.chatNext) if (next < now) this.chatNext.delete(chat)
  }
}
