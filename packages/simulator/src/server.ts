/**
 * The HTTP side: routes a request to its operation by method and path, reads the body (at most 64 KiB, else 413 at once), applies
 * the operation's fault, charges the IP budget, authenticates, charges the UID (and order-rate) budget, runs the operation and
 * answers. Every failure is a JSON error body; nothing a client sends can crash the process or leave a request hanging.
 *
 * A V3 path (`/capi/v3/…`, `/api/v3/…`) answers V3's way (docs/v3.md §1.5, §1.6): errors `{ code: <negative number>, msg }`,
 * placement charged to the account's ORDERS budget instead of the IP weight, and the budgets' state in
 * `X-USED-WEIGHT-…` / `X-REMAINING-WEIGHT-…` (and `X-ORDER-COUNT-…` / `X-ORDER-REMAINING-…` on placement) headers.
 */
import type { IncomingMessage, OutgoingHttpHeaders, RequestListener, ServerResponse } from "node:http"
import { handleAdmin, isAdminPath } from "./admin.js"
import { authenticate } from "./auth.js"
import type { Call } from "./call.js"
import type { Failure } from "./failures.js"
import type { Delays } from "./Delays.js"
import { failure, isFailure, tooFrequent } from "./failures.js"
import { bodyTooLarge, readBody, send, sendFailure } from "./http.js"
import { operations } from "./operations.js"
import type { Operation } from "./operation.js"
import { isFields } from "./requests.js"
import type { Simulation } from "./Simulation.js"
import type { Fault } from "./types.js"
import { notSupported, toV3 } from "./v3/errors.js"
import { usageHeaders } from "./v3/limits.js"

const NUMERIC = /^-?\d+(?:\.\d+)?$/
const utf8 = new TextDecoder("utf-8", { fatal: true })

export type Served = "futures" | "spot" | "both"

type SignedOperation = Extract<Operation, { readonly signed: true }>

const STATUS_TEXT: Readonly<Record<number, string>> = { 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" }

/** What a gateway in front of the exchange answers: an HTML page, not the exchange's JSON. */
const gatewayPage = (status: number) => {
  const title = `${status} ${STATUS_TEXT[status] ?? "Error"}`
  return `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>`
}

/** Numeric strings become numbers (the classic drift of a wire format); an empty list gets a null record. */
const numbersForStrings = (value: unknown): unknown => {
  if (typeof value === "string") return NUMERIC.test(value) ? Number(value) : value
  if (Array.isArray(value)) return value.length === 0 ? [null] : value.map(numbersForStrings)
  if (isFields(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, numbersForStrings(item)]))
  return value
}

/** The answer as a `malformed` or `truncated` fault changes it. */
const corrupt = (operation: Operation, text: string, fault: Fault | undefined): string => {
  if (fault?.kind === "truncated") return text.slice(0, Math.max(1, Math.floor(text.length / 2)))
  if (fault?.kind !== "malformed") return text
  const json: unknown = JSON.parse(text)
  // the envelope stays valid: the payload inside it is what goes wrong
  return JSON.stringify(operation.envelope !== "bare" && isFields(json) ? { ...json, data: numbersForStrings(json["data"]) } : numbersForStrings(json))
}

const isJsonContent = (value: string | undefined) => value !== undefined && /^application\/json\s*(;|$)/i.test(value.trim())

const remoteIp = (req: IncomingMessage) => req.socket.remoteAddress ?? "unknown"

const isV3Path = (path: string) => path.startsWith("/capi/v3/") || path.startsWith("/api/v3/")

/** A signed operation's outcome, with the headers it adds (V3's ORDERS budget). */
interface Outcome {
  readonly result: string | Failure
  readonly headers: OutgoingHttpHeaders
}

/** `admin`: whether the control routes under `/__sim` are served; without them those paths are unknown (404). */
export const createListener = (simulation: Simulation, served: Served, delays: Delays, admin: boolean): RequestListener => {
  /** the operations at each path, one per method */
  const routes = new Map<string, Array<Operation>>()
  for (const operation of operations) {
    if (served === "both" || operation.api === served) routes.set(operation.path, [...(routes.get(operation.path) ?? []), operation])
  }

  /** The call an operation is given: a POST body (or a V3 DELETE's, when it has one) must be declared JSON, and any body must be UTF-8. */
  const callOf = (operation: Operation, req: IncomingMessage, query: string, bytes: Buffer, now: number): Call | Failure => {
    const hasBody = operation.method === "POST" || (operation.version === "v3" && bytes.length > 0)
    if (hasBody && !isJsonContent(req.headers["content-type"])) {
      return failure("40007", "Invalid Content-Type, please use application/json")
    }
    try {
      return { query, body: utf8.decode(bytes), now }
    } catch {
      return failure("40017", "Parameter verification failed: the body is not UTF-8")
    }
  }

  /** A signed operation: authenticated, charged to the account's budgets, then run for that account. */
  const runSigned = (operation: SignedOperation, req: IncomingMessage, query: string, bytes: Buffer, now: number): Outcome => {
    const refused = (refusal: Failure, headers: OutgoingHttpHeaders = {}): Outcome => ({ result: refusal, headers })
    const account = authenticate({ method: req.method ?? "", path: operation.path, query, body: bytes, headers: req.headers }, simulation.accounts, now)
    if (isFailure(account)) return refused(account)
    const { budgets } = simulation
    if (!budgets.chargeUid(account.uid, operation.uidWeight, simulation.now())) return refused(tooFrequent)
    if (operation.placesOrders && !budgets.chargeOrder(account.uid, simulation.now())) return refused(tooFrequent)
    let headers: OutgoingHttpHeaders = {}
    if (operation.orderUnits > 0) {
      const charged = budgets.chargeOrders(account.uid, operation.orderUnits, simulation.now())
      headers = usageHeaders("orders", budgets.ordersUsage(account.uid, simulation.now()), windowMs())
      if (!charged) return refused(tooFrequent, headers)
    }
    if (operation.agentOnly && !account.agent) return refused(failure("40014", "Insufficient permissions: not an agent account"), headers)
    const call = callOf(operation, req, query, bytes, now)
    return { result: isFailure(call) ? call : operation.run(simulation.exchange, call, account), headers }
  }

  const windowMs = () => (simulation.budgets.settings === false ? 0 : simulation.budgets.settings.windowMs)

  /** After the body was read and the fault drawn: the IP budget, then the operation; V3 answers carry the budgets' headers. */
  const answer = (operation: Operation, req: IncomingMessage, res: ServerResponse, query: string, bytes: Buffer, fault: Fault | undefined) => {
    const now = simulation.now()
    const ip = remoteIp(req)
    const charged = simulation.budgets.chargeIp(ip, operation.ipWeight, now)
    const v3 = operation.version === "v3"
    const weightHeaders = v3 ? usageHeaders("weight", simulation.budgets.ipUsage(ip, now), windowMs()) : {}
    const refuse = (refusal: Failure, headers: OutgoingHttpHeaders = {}) =>
      sendFailure(res, v3 ? toV3(refusal) : refusal, now, { ...weightHeaders, ...headers })
    if (!charged) return refuse(tooFrequent)
    // a skewed clock judges the signature's time and stamps the answer; the budgets keep the real one
    const clock = fault?.kind === "clockSkew" ? now + fault.ms : now
    let outcome: Outcome
    if (operation.signed) outcome = runSigned(operation, req, query, bytes, clock)
    else {
      const call = callOf(operation, req, query, bytes, clock)
      outcome = { result: isFailure(call) ? call : operation.run(simulation.exchange, call), headers: {} }
    }
    if (isFailure(outcome.result)) return refuse(outcome.result, outcome.headers)
    send(res, 200, corrupt(operation, outcome.result, fault), "application/json", { ...weightHeaders, ...outcome.headers })
  }

  /** Not there: V2 answers 404 for an unknown path; V3 -1150, as the exchange answered a route it did not serve yet. */
  const unknownRoute = (res: ServerResponse, method: string, path: string) =>
    sendFailure(
      res,
      isV3Path(path) ? notSupported(method, 404) : failure("404", `Not Found: no operation at ${method} ${path}`, 404),
      simulation.now()
    )

  const serveOperation = async (operation: Operation, req: IncomingMessage, res: ServerResponse, query: string) => {
    simulation.count(operation.name)
    const body = await readBody(req)
    if (body._tag === "Aborted") return
    if (body._tag === "TooLarge") return sendFailure(res, bodyTooLarge, simulation.now())
    const fault = simulation.faults.take(operation.name)
    switch (fault?.kind) {
      case "drop":
        req.socket.destroy()
        return
      case "status":
        return send(res, fault.status, gatewayPage(fault.status), "text/html")
      case "rateLimit":
        if (fault.retryAfterSeconds !== undefined) res.setHeader("retry-after", String(fault.retryAfterSeconds))
        return sendFailure(res, operation.version === "v3" ? toV3(tooFrequent) : tooFrequent, simulation.now())
      case "unsupported":
        return operation.version === "v3" ? sendFailure(res, notSupported(operation.method), simulation.now()) : unknownRoute(res, operation.method, operation.path)
      case "empty":
        return send(res, 200, "")
      case "latency":
        // a simulator that is closing answers nothing more
        if (!delays.after(fault.ms, () => guarded(res, () => answer(operation, req, res, query, body.bytes, fault)))) req.socket.destroy()
        return
      default:
        return answer(operation, req, res, query, body.bytes, fault)
    }
  }

  /** An unexpected exception is a bug in the simulator: answered as the exchange's system error, logged. */
  const guarded = (res: ServerResponse, work: () => void | Promise<void>) => {
    const onDefect = (defect: unknown) => {
      console.error("simulator defect:", defect)
      const refusal = failure("40015", "System error", 500)
      sendFailure(res, isV3Path(res.req.url ?? "") ? toV3(refusal) : refusal, simulation.now())
    }
    try {
      const result = work()
      if (result instanceof Promise) result.catch(onDefect)
    } catch (defect) {
      onDefect(defect)
    }
  }

  return (req, res) => {
    guarded(res, async () => {
      const url = req.url ?? "/"
      const mark = url.indexOf("?")
      const path = mark < 0 ? url : url.slice(0, mark)
      const query = mark < 0 ? "" : url.slice(mark + 1)
      if (admin && isAdminPath(path)) return handleAdmin(simulation, req, res, path, query)
      const atPath = routes.get(path) ?? []
      const operation = atPath.find((candidate) => candidate.method === req.method)
      if (operation === undefined) {
        const body = await readBody(req)
        if (body._tag === "Aborted") return
        if (atPath.length === 0) return unknownRoute(res, req.method ?? "", path)
        const allowed = atPath.map((candidate) => candidate.method).join(", ")
        const refusal = isV3Path(path) ? notSupported(req.method ?? "") : failure("405", `Method Not Allowed: ${path} takes ${allowed}`, 405)
        return sendFailure(res, refusal, simulation.now(), { allow: allowed })
      }
      return serveOperation(operation, req, res, query)
    })
  }
}
