/**
 * Control routes under `/__sim/` for tests and demos: counters, placed client_oids, market ticks, faults, budgets and
 * the demo accounts. They need no signature and count against no budget, so they answer loopback callers only.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { FaultSchema } from "./Faults.js"
import type { Failure } from "./failures.js"
import { badParameter, failure, isFailure } from "./failures.js"
import { isOperation, OPERATION_NAMES } from "./operations.js"
import { bodyFields, decodeBody, queryFields } from "./requests.js"
import type { Body } from "./http.js"
import { send, sendFailure } from "./http.js"
import type { Simulation } from "./Simulation.js"

export const ADMIN_PREFIX = "/__sim"

const ROUTES = [
  "GET    /__sim                        this list",
  "GET    /__sim/counters               requests received per operation",
  "GET    /__sim/client-oids[?apiKey=K] client_oids placed (by one account)",
  "POST   /__sim/tick[?times=N]         advance the market by N ticks (default 1; ticks × symbols at most 5 000 000)",
  "GET    /__sim/faults                 faults switched on",
  "PUT    /__sim/faults/:operation      switch a fault on (JSON body, e.g. {\"kind\":\"status\",\"status\":503,\"times\":2})",
  "DELETE /__sim/faults/:operation      switch it off",
  "POST   /__sim/budgets/reset          forget every budget charge and penalty",
  "GET    /__sim/accounts               the demo accounts"
] as const

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"])

export const isAdminPath = (path: string) => path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)

const json = (res: ServerResponse, value: unknown) => send(res, 200, JSON.stringify(value))

const ticks = (simulation: Simulation, query: string, body: string): number | Failure => {
  const fromQuery = queryFields(query)
  if (isFailure(fromQuery)) return fromQuery
  const fromBody = bodyFields(body)
  if (isFailure(fromBody)) return fromBody
  const raw = fromQuery["times"] ?? fromBody["times"] ?? 1
  const times = typeof raw === "string" && /^\d{1,9}$/.test(raw) ? Number(raw) : raw
  const checked = simulation.checkTicks(times)
  return typeof checked === "string" ? badParameter(checked) : checked
}

export const handleAdmin = (simulation: Simulation, req: IncomingMessage, res: ServerResponse, path: string, query: string, body: Body): void => {
  const now = simulation.now()
  if (!LOOPBACK.has(req.socket.remoteAddress ?? "")) return sendFailure(res, failure("40018", "The simulator's admin routes answer loopback callers only", 403), now)
  if (body._tag !== "Body") return sendFailure(res, failure("40017", "Request body too large", 413), now)
  const text = body.bytes.toString("utf8")
  const route = `${req.method} ${path.slice(ADMIN_PREFIX.length) || "/"}`
  const faultRoute = /^(PUT|POST|DELETE) \/faults\/([A-Za-z]+)$/.exec(route)
  if (faultRoute !== null) {
    const [, method, operation = ""] = faultRoute
    if (!isOperation(operation)) return sendFailure(res, failure("404", `No operation ${operation}; one of ${OPERATION_NAMES.join(", ")}`, 404), now)
    if (method === "DELETE") {
      simulation.setFault(operation, undefined)
      return json(res, simulation.faults.list())
    }
    const fault = decodeBody(FaultSchema, text)
    if (isFailure(fault)) return sendFailure(res, fault, now)
    simulation.setFault(operation, fault)
    return json(res, simulation.faults.list())
  }
  switch (route) {
    case "GET /":
      return json(res, { routes: ROUTES })
    case "GET /counters":
      return json(res, simulation.counters())
    case "GET /client-oids": {
      const fields = queryFields(query)
      if (isFailure(fields)) return sendFailure(res, fields, now)
      const apiKey = fields["apiKey"]
      return json(res, { clientOids: simulation.placedClientOids(typeof apiKey === "string" ? apiKey : undefined) })
    }
    case "POST /tick": {
      const times = ticks(simulation, query, text)
      if (isFailure(times)) return sendFailure(res, times, now)
      simulation.tick(times)
      return json(res, { ticks: simulation.exchange.market.ticks })
    }
    case "GET /faults":
      return json(res, simulation.faults.list())
    case "POST /budgets/reset":
      simulation.budgets.reset()
      return json(res, { reset: true })
    case "GET /accounts":
      return json(res, { accounts: [...simulation.accounts.values()] })
    default:
      return sendFailure(res, failure("404", `Not Found: no admin route ${route}; see GET ${ADMIN_PREFIX}`, 404), now)
  }
}
