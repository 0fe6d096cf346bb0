/**
 * What every confirmed single write shares (a cancel, a close, a leverage change): its Confirm and Back buttons, the
 * press that routes to the feature's PendingWrites, the answer to a press on a confirmation no longer waiting, and the
 * view of a failed write — an unknown outcome said as such, with where to look.
 */
import { Cause, Option } from "effect"
import type { Middleware } from "telegraf"
import { bold, fmt } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import type { WriteFeature } from "./CallbackData.js"
import type { BotError } from "./messages.js"
import type { PendingWrites, WriteClaim, WriteNotClaimed } from "./PendingWrites.js"
import { failureView } from "./respond.js"
import type { BotContext } from "./telegram/BotContext.js"
import { view } from "./view.js"
import type { Button, View } from "./view.js"

/** The Confirm and Back buttons of a confirmation kept under `id`. */
export const confirmRow = (feature: WriteFeature, id: string, confirm: string): ReadonlyArray<Button> => [
  { label: `✅ ${confirm}`, data: { _tag: "Write", feature, id, go: true } },
  { label: "‹ Back", data: { _tag: "Write", feature, id, go: false } }
]

/** When the pressed message was sent (epoch ms); unknown for one Telegram no longer shows the bot (date 0). */
const messageTime = (ctx: BotContext): number | undefined => {
  const date = ctx.callbackQuery?.message?.date
  return date === undefined || date === 0 ? undefined : date * 1000
}

/**
 * Handles Confirm and Back presses of one feature's confirmations: claims the write (Confirm) or drops it (Back) for
 * the presser, saves the claim, then hands it on. The handler answers the press.
 */
export const onWrite = <W>(
  feature: WriteFeature,
  pending: PendingWrites<W>,
  handle: (ctx: BotContext, claim: WriteClaim<W>, go: boolean) => Promise<void>
): Middleware<BotContext> =>
async (ctx, next) => {
  const data = ctx.button
  if (data?._tag !== "Write" || data.feature !== feature) return next()
  const owner = ctx.from?.id ?? 0
  const claim = data.go ? pending.claim(data.id, owner, messageTime(ctx)) : pending.drop(data.id, owner, messageTime(ctx))
  if (claim._tag === "NotYours") ctx.note("denied:not_owner", data.id, "warn")
  else if (claim._tag !== "Claimed") ctx.note(`not_pending:${claim._tag}`, data.id)
  // the claim is saved first: after a restart, a write that may have gone out is never sent again
  if (claim._tag === "Claimed") await pending.saved()
  return handle(ctx, claim, data.go)
}

/** The answer to a press on a confirmation that no longer waits: nothing is sent by it. */
export const notWaitingView = (claim: WriteNotClaimed, again: FmtString): View => {
  switch (claim._tag) {
    case "Missing":
      return view(fmt`${claim.restarted ? "This confirmation is from before the bot restarted" : "The bot no longer has this confirmation"}, so nothing was done by this press. ${again}`)
    case "Expired":
      return view(fmt`This confirmation expired; nothing was done. ${again}`)
    case "Sent":
      return view(fmt`This was confirmed already and sent once; it is not sent again.`)
    case "Dropped":
      return view(fmt`This was called off; nothing was done. ${again}`)
    case "NotYours":
      return view(fmt`This confirmation belongs to someone else.`)
  }
}

/**
 * A failed write: an unknown outcome (the request may have been acted on; it is never sent again) says so and where
 * to look (`check`); any other failure is the usual error reply (nothing was done).
 */
export const writeFailureView = (ctx: BotContext, cause: Cause.Cause<BotError>, what: string, check: FmtString): View => {
  const error = Cause.failureOption(cause)
  if (Option.isNone(error) || error.value._tag !== "OutcomeUnknownError") return failureView(ctx, cause)
  ctx.note("outcome_unknown", error.value.message, "warn")
  return view(fmt`${bold("Outcome unknown")}: the request to ${what} was sent, but ${error.value.happened}, so it may or may not have been done. It is not sent again. ${check}`)
}
