/**
 * Outgoing message pacing under Telegram's limits: about one message per second in a chat and about 30 per second
 * overall. A send first waits for its chat's turn, then for a global slot; global slots are taken only by sends whose
 * chat turn has come, so a busy chat never holds up the others.
 */
import { setTimeout as sleep } from "node:timers/promises"

export interface PacerOptions {
  /** minimum time between two messages to one chat (default 1000) */
  readonly perChatIntervalMs?: number
  /** messages per second over all chats (default 30) */
  readonly globalPerSecond?: number
}

export class Pacer {
  private readonly perChat: number
  private readonly globalInterval: number
  private globalNext = 0
  private readonly chatNext = new Map<string, number>()

  constructor(options: PacerOptions = {}, private readonly now: () => number = Date.now) {
    this.perChat = options.perChatIntervalMs ?? 1000
    this.globalInterval = 1000 / (options.globalPerSecond ?? 30)
  }

  /** Resolves when a message to `chat` may go out. */
  async slot(chat: string | undefined): Promise<void> {
    if (chat !== undefined) {
      const now = this.now()
      const turn = Math.max(now, this.chatNext.get(chat) ?? 0)
      this.chatNext.set(chat, turn + this.perChat)
      if (this.chatNext.size > 10_000) this.prune(now)
      if (turn > now) await sleep(turn - now)
    }
    const now = this.now()
    const at = Math.max(now, this.globalNext)
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
