/**
 * What every confirmed single write shares (a cancel, a close, a leverage change): its Confirm and Back buttons, the
 * confirmation recorded before it is shown, the press that claims it (recorded before the write is sent), its
 * settlement, and the truthful answers — an unknown outcome said as such, with where to look. A feature supplies its
 * payload, how to send it and what to show around it.
 */
import { Cause, Either, Exit, Option } from "effect"
import type { Effect, Schema } from "effect"
import type { Middleware } from "telegraf"
import { bold, fmt } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import type { WriteKind } from "../ui/CallbackData.js"
import type { NotClaimed, Settlement } from "./Confirmations.js"
import { withSimulatorLine } from "../ui/messages.js"
import type { BotError } from "../ui/messages.js"
import { answerPress } from "../telegram/middleware.js"
import type { Services } from "../ops/BotRuntime.js"
import { failureView, runExit, send, show } from "../telegram/respond.js"
import { StoreError } from "../store/Store.js"
import type { Deps } from "../telegram/respond.js"
import type { BotContext } from "../telegram/BotContext.js"
import { view } from "../ui/view.js"
import type { Button, View } from "../ui/view.js"

/** The Confirm and Back buttons of a confirmation kept under `id`. */
export const confirmRow = (feature: WriteKind, id: string, confirm: string): ReadonlyArray<Button> => [
  { label: `✅ ${confirm}`, data: { _tag: "Write", feature, id, go: true } },
  { label: "‹ Back", data: { _tag: "Write", feature, id, go: false } }
]

/** When the pressed message was sent (epoch ms); unknown for one Telegram no longer shows the bot (date 0). */
export const messageTime = (ctx: BotContext): number | undefined => {
  const date = ctx.callbackQuery?.message?.date
  return date === undefined || date === 0 ? undefined : date * 1000
}

/**
 * How a write's exit settles its confirmation: a write is never sent twice, so it is done with unless its sending
 * could not be recorded (nothing left; it may be confirmed again), and an unknown outcome is said as such.
 */
export const settlementOf = (exit: Exit.Exit<unknown, BotError>): Settlement =>
  Exit.isSuccess(exit)
    ? "sent"
    : Option.match(Cause.failureOption(exit.cause), {
      onNone: () => "unknown",
      onSome: (error) => (error._tag === "OutcomeUnknownError" ? "unknown" : error._tag === "StoreError" ? "again" : "refused")
    })

/** A request the store could not record: no confirmation was made, so nothing can be confirmed. */
export const notRecordedAskView = (): View =>
  view(fmt`The bot could not record this request (its storage failed), so it cannot be confirmed and nothing was done. Try again shortly.`)

/** The answer to a press on a confirmation that no longer waits: nothing is sent by it. */
export const notWaitingView = (claim: NotClaimed<unknown>, again: FmtString, check: FmtString): View => {
  switch (claim._tag) {
    case "Missing":
      return view(fmt`${claim.restarted ? "This confirmation is from before the bot restarted" : "The bot no longer has this confirmation"}, so nothing was done by this press. ${again}`)
    case "Expired":
      return view(fmt`This confirmation expired; nothing was done. ${again}`)
    case "Evicted":
      return view(fmt`Newer confirmations took this one's place; nothing was done. ${again}`)
    case "Busy":
      return view(fmt`This is being sent now; it is not sent twice.`)
    case "Sent":
      return view(fmt`This was confirmed already and sent once; it is not sent again.`)
    case "Refused":
      return view(fmt`This was confirmed already and failed; nothing was done and it is not sent again. ${again}`)
    case "Unknown":
      return view(fmt`${bold("Outcome unknown")}: this was sent, but its answer never came (the bot stopped while sending it, or the answer was lost), so it may or may not have been done. It is not sent again. ${check}`)
    case "Dropped":
      return view(fmt`This was called off; nothing was done. ${again}`)
    case "Superseded":
      return view(fmt`This changed before it was confirmed, so it was asked anew; nothing was done by this one.`)
    case "NotYours":
      return view(fmt`This confirmation belongs to someone else.`)
    case "NotRecorded":
      return notRecordedPressView()
  }
}

/** A press the store could not record: nothing was sent or changed, and what was asked still waits. */
export const notRecordedPressView = (): View =>
  view(fmt`The bot could not record your press (its storage failed), so nothing was sent or changed: the request still waits until it expires. Press again shortly.`)

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

/** Runs a write's program once its leaving is recorded. */
export type SendOnce = <A>(program: Effect.Effect<A, BotError, Services>) => Promise<Exit.Exit<A, BotError>>

/** One feature's single write: what it stores, and what it does around the shared flow. */
export interface SingleWrite<W, I> {
  readonly feature: WriteKind
  readonly schema: Schema.Schema<W, I>
  /** how to ask again, after a confirmation that did nothing */
  readonly again: FmtString
  /** where to look when the outcome is unknown */
  readonly check: (write: W) => FmtString
  /** the short answer to Confirm while the write goes out, e.g. "Cancelling…" */
  readonly sending: string
  /**
   * Sends the write: how it settles, and the note to show. Its reads run as usual; the write itself goes through
   * `sendOnce`, which records that it leaves first (and sends nothing, failing with a StoreError, when it cannot).
   */
  readonly send: (ctx: BotContext, write: W, sendOnce: SendOnce) => Promise<{ readonly settlement: Settlement; readonly note: FmtString }>
  /** Shows where the write was asked from, with the outcome's note (after Confirm) or none (after Back). */
  readonly back: (ctx: BotContext, write: W, note?: FmtString) => Promise<void>
}

/**
 * A feature's confirmed single write: `ask` records it and shows the confirmation (`confirm(id)`, in place of the
 * pressed message or as a new one); `presses` handles its Confirm and Back.
 */
export const singleWrite = <W, I>(deps: Deps, spec: SingleWrite<W, I>) => {
  const kind = deps.confirmations.kind(spec.feature, spec.schema, {
    unknownView: async (write) => notWaitingView({ _tag: "Unknown", payload: write }, spec.again, spec.check(write))
  })
  const checkOf = (write: W | undefined) => (write === undefined ? fmt`Look on the exchange before asking again.` : spec.check(write))

  const ask = async (ctx: BotContext, write: W, what: string, confirm: (id: string) => View): Promise<void> => {
    const made = await kind.create(ctx.from?.id ?? 0, ctx.chat?.id ?? 0, () => write)
    const reply = ctx.callbackQuery === undefined ? send : show
    if (Either.isLeft(made)) {
      ctx.note("not_recorded", what, "error")
      return reply(ctx, notRecordedAskView())
    }
    ctx.note("ask", `${made.right.id} ${what}`)
    return reply(ctx, withSimulatorLine(deps.simulator, confirm(made.right.id)))
  }

  const presses: Middleware<BotContext> = async (ctx, next) => {
    const data = ctx.button
    if (data?._tag !== "Write" || data.feature !== spec.feature) return next()
    const owner = ctx.from?.id ?? 0
    const claim = data.go ? await kind.claim(data.id, owner, messageTime(ctx)) : await kind.drop(data.id, owner, messageTime(ctx))
    if (claim._tag !== "Claimed") {
      ctx.note(claim._tag === "NotYours" ? "denied:not_owner" : `not_pending:${claim._tag}`, data.id, claim._tag === "NotYours" ? "warn" : "info")
      await answerPress(ctx)
      return send(ctx, notWaitingView(claim, spec.again, claim._tag === "Unknown" ? checkOf(claim.payload) : fmt``))
    }
    if (!data.go) {
      await answerPress(ctx)
      return spec.back(ctx, claim.payload)
    }
    // answered before the write, not awaited: the write never waits on Telegram
    void answerPress(ctx, spec.sending)
    const sendOnce: SendOnce = async (program) =>
      (await kind.sending(data.id))
        ? runExit(ctx, deps, program)
        : Exit.fail(new StoreError({ key: `confirmation ${data.id}`, reason: "its sending could not be recorded" }))
    let sent: { readonly settlement: Settlement; readonly note: FmtString }
    try {
      sent = await spec.send(ctx, claim.payload, sendOnce)
      await kind.settle(data.id, sent.settlement)
    } finally {
      // a send that failed before settling leaves nothing held (a no-op once settled)
      await kind.release(data.id)
    }
    const { settlement, note } = sent
    deps.logger.log(settlement === "sent" ? "info" : "warn", "write", {
      feature: spec.feature,
      user: ctx.from?.id,
      confirmation: data.id,
      settlement,
      outcome: note.text
    })
    return spec.back(ctx, claim.payload, note)
  }

  return { ask, presses }
}
