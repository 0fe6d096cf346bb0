/**
 * Refusals as the exchange answers them: an HTTP status and a body. V2's body is `{ code, msg, requestTime }`, the
 * code a string from docs/exchange.md §4.3; V3's is `{ code, msg }`, the code a negative number (docs/v3.md §1.5).
 */
export interface Failure {
  readonly _tag: "Failure"
  readonly status: number
  readonly code: string | number
  readonly msg: string
}

export const failure = (code: string | number, msg: string, status = 400): Failure => ({ _tag: "Failure", status, code, msg })

export const isFailure = (value: unknown): value is Failure =>
  typeof value === "object" && value !== null && "_tag" in value && value._tag === "Failure"

export const badParameter = (detail: string): Failure => failure("40017", `Parameter verification failed: ${detail}`)

export const tooFrequent: Failure = failure("429", "Request is too frequent", 429)

export const body = (refusal: Failure, requestTime: number) =>
  typeof refusal.code === "number" ? { code: refusal.code, msg: refusal.msg } : { code: refusal.code, msg: refusal.msg, requestTime }
