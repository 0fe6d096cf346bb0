/**
 * What one bot process counts for Prometheus (`GET /metrics`): updates by outcome, commands by name, exchange requests
 * by operation and status, the limiter's refusals, the replies waiting to go to Telegram, confirmations by state and
 * whether this process runs the account watcher. Every label takes its values from a closed set (the command table,
 * core's operations and error tags, the confirmation states): nothing a user types becomes a label, and no secret
 * (the token, the keys, the Redis password) is ever one.
 *
 * Updates and commands are counted from the update's log line, the one record of how it ended, so the metrics and
 * the log agree; exchange requests from core's spans (`TradeDesk.<operation>`, one per call), so core is untouched.
 */
import { RateLimitError } from "@tradedesk/core"
import type { ManagedRuntime } from "effect"
import { Cause, Context, Duration, Effect, Exit, Option, Predicate, Tracer } from "effect"
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client"
import { isCommand } from "../ui/commands.js"
import { ConfirmStore, State } from "../confirm/ConfirmStore.js"
import type { Logger } from "./log.js"

/** How an update ended: handled (whatever it answered), taken by another process, failed in the bot, or refused (503). */
export type UpdateOutcome = "handled" | "duplicate" | "failed" | "refused"

/** The confirmations by state, or none when they could not be listed. */
export type ConfirmationCounts = ReadonlyMap<State, number>

/** What is sampled when Prometheus scrapes: supplied once the bot and its store exist. */
export interface Sources {
  /** messages waiting to go to Telegram, over all chats */
  readonly replyQueue: () => number
  /** the confirmations by state; none when the store could not list them in time */
  readonly confirmations: () => Promise<ConfirmationCounts | undefined>
}

export interface MetricsService {
  /** The Prometheus text of every metric. */
  readonly text: () => Promise<string>
  readonly contentType: string
  /** The logger that also counts the updates its lines tell of. */
  readonly observing: (logger: Logger) => Logger
  /** A tracer over `base` that counts core's spans by operation and exit. */
  readonly tracer: (base: Tracer.Tracer) => Tracer.Tracer
  /** When the exchange last answered a request with success (epoch ms); none yet. */
  readonly lastExchangeAnswer: () => number | undefined
  /** Whether this process runs the account watcher (`tradedesk_watcher_lease_held`). */
  readonly watcherLeaseHeld: (held: boolean) => void
  /** Where the gauges sampled at each scrape read from, once the bot exists (until then they are left out). */
  readonly sample: (sources: Sources) => void
}

export class Metrics extends Context.Tag("@tradedesk/bot/Metrics")<Metrics, MetricsService>() {}

const SPAN_PREFIX = "TradeDesk."

/** A command name from the command table, else `other`: a typed `/anything` must not grow a label of its own. */
const commandLabel = (kind: string): string | undefined => {
  if (!kind.startsWith("/")) return undefined
  const name = kind.slice(1)
  return isCommand(name) ? name : "other"
}

/** Outcomes the bot notes on an update (`BotContext.note`) that mean the bot failed, not the user. */
const failedOutcome = (outcome: unknown) => outcome === "fault"

const hasTag = (value: unknown): value is { readonly _tag: string } => Predicate.hasProperty(value, "_tag") && typeof value._tag === "string"

/** `ok`, the failure's tag (core's errors: a closed set), `interrupted` or `defect`. */
const statusOf = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) return "ok"
  if (Cause.isInterruptedOnly(exit.cause)) return "interrupted"
  return Option.match(Cause.failureOption(exit.cause), {
    onNone: () => "defect",
    onSome: (error) => (hasTag(error) ? error._tag : "failure")
  })
}

/** A span as the tracer underneath made it, that also reports its exit. */
class CountedSpan implements Tracer.Span {
  readonly _tag = "Span"
  constructor(private readonly span: Tracer.Span, private readonly onEnd: (exit: Exit.Exit<unknown, unknown>) => void) {}
  get name() {
    return this.span.name
  }
  get spanId() {
    return this.span.spanId
  }
  get traceId() {
    return this.span.traceId
  }
  get parent() {
    return this.span.parent
  }
  get context() {
    return this.span.context
  }
  get status() {
    return this.span.status
  }
  get attributes() {
    return this.span.attributes
  }
  get links() {
    return this.span.links
  }
  get sampled() {
    return this.span.sampled
  }
  get kind() {
    return this.span.kind
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    this.span.end(endTime, exit)
    this.onEnd(exit)
  }
  attribute(key: string, value: unknown): void {
    this.span.attribute(key, value)
  }
  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    this.span.event(name, startTime, attributes)
  }
  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.span.addLinks(links)
  }
}

/** The budgets core names (`RateLimitError.budget`); anything else is `other`. */
const BUDGETS: ReadonlySet<string> = new Set(["ip", "uid", "orders"])

export interface MetricsOptions {
  /**
   * prom-client's `process_*` and `nodejs_*` too: once per process (they watch the event loop and the collector),
   * so the application's metrics have them and a test's many runtimes do not
   */
  readonly process?: boolean
  readonly now?: () => number
}

export const make = (options: MetricsOptions = {}): MetricsService => {
  const now = options.now ?? Date.now
  const registry = new Registry()
  const registers = [registry]
  if (options.process === true) collectDefaultMetrics({ register: registry })
  const updates = new Counter({
    name: "tradedesk_updates_total",
    help: "Telegram updates by outcome: handled, duplicate (another process took it), failed (a fault in the bot), refused (answered 503: the store could not be asked, or the process is draining)",
    labelNames: ["outcome"] as const,
    registers
  })
  for (const outcome of ["handled", "duplicate", "failed", "refused"] satisfies ReadonlyArray<UpdateOutcome>) updates.inc({ outcome }, 0)
  const commands = new Counter({
    name: "tradedesk_commands_total",
    help: "commands received, by name (a name not in the command table counts as other)",
    labelNames: ["command"] as const,
    registers
  })
  const exchangeRequests = new Counter({
    name: "tradedesk_exchange_requests_total",
    help: "calls to the exchange by operation and status (ok, the error's tag, interrupted or defect)",
    labelNames: ["operation", "status"] as const,
    registers
  })
  const limiterRefusals = new Counter({
    name: "tradedesk_limiter_refusals_total",
    help: "calls refused for the rate limit, by budget and source (local: the bot's limiter; server: a 429 from the exchange)",
    labelNames: ["budget", "source"] as const,
    registers
  })
  const leaseHeld = new Gauge({
    name: "tradedesk_watcher_lease_held",
    help: "1 when this process runs the account watcher",
    registers
  })
  leaseHeld.set(0)
  let sources: Sources | undefined
  new Gauge({
    name: "tradedesk_reply_queue_depth",
    help: "messages waiting to go to Telegram, over all chats",
    registers,
    collect() {
      if (sources !== undefined) this.set(sources.replyQueue())
    }
  })
  new Gauge({
    name: "tradedesk_confirmations",
    help: "confirmations in the store by state (with Redis: every process's); left out when the store could not list them in time",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      this.reset()
      const counts = await sources?.confirmations()
      if (counts !== undefined) for (const state of State.literals) this.set({ state }, counts.get(state) ?? 0)
    }
  })

  let lastAnswer: number | undefined
  const ended = (operation: string, exit: Exit.Exit<unknown, unknown>) => {
    const status = statusOf(exit)
    if (status === "ok") lastAnswer = now()
    exchangeRequests.inc({ operation, status })
    const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
    if (Option.isSome(error) && error.value instanceof RateLimitError) {
      limiterRefusals.inc({ budget: BUDGETS.has(error.value.budget) ? error.value.budget : "other", source: error.value.source })
    }
  }

  return {
    text: () => registry.metrics(),
    contentType: registry.contentType,
    observing: (logger) => ({
      log: (level, event, fields = {}) => {
        logger.log(level, event, fields)
        if (event === "update") {
          updates.inc({ outcome: failedOutcome(fields["outcome"]) ? "failed" : "handled" })
          const command = typeof fields["kind"] === "string" ? commandLabel(fields["kind"]) : undefined
          if (command !== undefined) commands.inc({ command })
        } else if (event === "update_duplicate") {
          updates.inc({ outcome: "duplicate" })
        } else if (event === "update_refused") {
          updates.inc({ outcome: "refused" })
        }
      }
    }),
    tracer: (base) =>
      Tracer.make({
        span: (...args) => {
          const span = base.span(...args)
          return span.name.startsWith(SPAN_PREFIX) ? new CountedSpan(span, (exit) => ended(span.name.slice(SPAN_PREFIX.length), exit)) : span
        },
        context: (f, fiber) => base.context(f, fiber)
      }),
    lastExchangeAnswer: () => lastAnswer,
    watcherLeaseHeld: (held) => leaseHeld.set(held ? 1 : 0),
    sample: (given) => {
      sources = given
    }
  }
}

/** Runs `effect` (the account watcher) with `tradedesk_watcher_lease_held` at 1, and 0 once it ends. */
export const whileWatching = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Metrics> =>
  Effect.flatMap(Metrics, (metrics) =>
    Effect.acquireUseRelease(
      Effect.sync(() => metrics.watcherLeaseHeld(true)),
      () => effect,
      () => Effect.sync(() => metrics.watcherLeaseHeld(false))
    ))

/**
 * The confirmations by state, from the store's list: it reads every record (on disk a file each, on Redis a hash each,
 * every process's), so it is read at most once per `everyMs` whatever the scrapes, and given up after `timeoutMs`.
 * `runtime` runs the read: the bot's runtime, or any that holds the confirmation store.
 */
export const confirmationCounts = (
  runtime: Pick<ManagedRuntime.ManagedRuntime<ConfirmStore, unknown>, "runPromise">,
  everyMs = 30_000,
  timeoutMs = 2_000,
  now: () => number = Date.now
): () => Promise<ConfirmationCounts | undefined> => {
  const listed = Effect.flatMap(ConfirmStore, (store) => store.list).pipe(
    Effect.map((records) => {
      const counts = new Map<State, number>()
      for (const record of records) counts.set(record.state, (counts.get(record.state) ?? 0) + 1)
      return counts
    }),
    Effect.timeout(Duration.millis(timeoutMs)),
    Effect.option,
    Effect.map(Option.getOrUndefined)
  )
  let last: { readonly at: number; readonly counts: Promise<ConfirmationCounts | undefined> } | undefined
  return () => {
    if (last === undefined || now() - last.at >= everyMs) last = { at: now(), counts: runtime.runPromise(listed).catch(() => undefined) }
    return last.counts
  }
}
