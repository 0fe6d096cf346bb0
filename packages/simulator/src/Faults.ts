/** Faults switched on per operation, from options or at run time; a fault with `times` clears itself after N requests. */
import { Schema } from "effect"
import type { Fault, OperationName } from "./types.js"

const Times = { times: Schema.optional(Schema.Int.pipe(Schema.positive())) }

/** A fault as sent to the admin route. */
export const FaultSchema: Schema.Schema<Fault> = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("latency"), ms: Schema.Int.pipe(Schema.between(0, 600_000)), ...Times }),
  // an error status: a 2xx or 3xx "fault" would be a success or a redirect the client is right to follow
  Schema.Struct({ kind: Schema.Literal("status"), status: Schema.Int.pipe(Schema.between(400, 599)), ...Times }),
  Schema.Struct({ kind: Schema.Literal("rateLimit"), retryAfterSeconds: Schema.optional(Schema.Int.pipe(Schema.between(0, 3600))), ...Times }),
  Schema.Struct({ kind: Schema.Literal("clockSkew"), ms: Schema.Int.pipe(Schema.between(-86_400_000, 86_400_000)), ...Times }),
  Schema.Struct({ kind: Schema.Literal("malformed", "truncated", "drop", "empty", "unsupported"), ...Times })
)

interface Armed {
  readonly fault: Fault
  remaining: number | undefined
}

export class Faults {
  private readonly armed = new Map<OperationName, Armed>()

  set(operation: OperationName, fault: Fault | undefined): void {
    if (fault === undefined) this.armed.delete(operation)
    else this.armed.set(operation, { fault, remaining: fault.times })
  }

  /** The fault for this request of the operation, counting it against `times`. */
  take(operation: OperationName): Fault | undefined {
    const armed = this.armed.get(operation)
    if (armed === undefined) return undefined
    if (armed.remaining !== undefined && --armed.remaining <= 0) this.armed.delete(operation)
    return armed.fault
  }

  list(): Partial<Record<OperationName, Fault & { readonly remaining?: number }>> {
    return Object.fromEntries(
      Array.from(this.armed, ([operation, armed]) => [operation, armed.remaining === undefined ? armed.fault : { ...armed.fault, remaining: armed.remaining }])
    )
  }
}
