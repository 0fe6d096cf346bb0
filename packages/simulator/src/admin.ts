/**
 * Control routes under `/__sim/` for tests and demos: counters, placed client_oids, market ticks, faults, budgets and
 * the demo accounts. They need no signature and count against no budget, so they answer loopback callers only. A
 * known path asked with another method is 405 with `Allow`; an unknown one 404.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { FaultSchema } from "./Faults.js"
import type { Failure } from "./failures.js"
import { badParameter, failure, isFailure } from "./failures.js"
import { isOperation, OPERATION_NAMES } from "./operations.js"
import type { OperationName } from "./types.js"
import { bodyFields, decodeBody, queryFields } from "./requests.js"
import { bodyTooLarge, readBody, send, sendFailure } from "./http.js"
import type { Simulation } from "./Simulation.js"

export const ADMIN_PREFIX = "/__sim"

/** What a route's handler is given: the request's query, body text and `:name` segment. */
interface Request {
  readonly simulation: Simulation
  readonly res: ServerResponse
  readonly query: string
  readonly text: string
  readonly param: string
  readonly now: number
}

interface Route {
  readonly method: "GET" | "POST" | "PUT" | "DELETE"
  /** under the prefix; a `:name` segment matches any one segment */
  readonly path: string
  /** the path as the list shows it, with its query */
  readonly usage: string
  readonly summary: string
  readonly serve: (request: Request) => void
}

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

/** Runs `change` on the operation a `:operation` segment names, then answers the faults switched on. */
const onFault = (change: (simulation: Simulation, operation: OperationName, text: string) => Failure | undefined) =>
  ({ simulation, res, text, param, now }: Request) => {
    if (!isOperation(param)) return sendFailure(res, failure("404", `No operation ${param}; one of ${OPERATION_NAMES.join(", ")}`, 404), now)
    const refused = change(simulation, param, text)
    return refused === undefined ? json(res, simulation.faults.list()) : sendFailure(res, refused, now)
  }

const ROUTES: ReadonlyArray<Route> = [
  { method: "GET", path: "/", usage: "", summary: "this list", serve: ({ res }) => json(res, { routes: LISTING }) },
  { method: "GET", path: "/counters", usage: "/counters", summary: "requests received per operation", serve: ({ simulation, res }) => json(res, simulation.counters()) },
  {
    method: "GET",
    path: "/client-oids",
    usage: "/client-oids[?apiKey=K]",
    summary: "client_oids placed (by one account)",
    serve: ({ simulation, res, query, now }) => {
      const fields = queryFields(query)
      if (isFailure(fields)) return sendFailure(res, fields, now)
      const apiKey = fields["apiKey"]
      return json(res, { clientOids: simulation.placedClientOids(typeof apiKey === "string" ? apiKey : undefined) })
    }
  },
  {
    method: "POST",
    path: "/tick",
    usage: "/tick[?times=N]",
    summary: "advance the market by N ticks (default 1; ticks × symbols at most 5 000 000)",
    serve: ({ simulation, res, query, text, now }) => {
      const times = ticks(simulation, query, text)
      if (isFailure(times)) return sendFailure(res, times, now)
      simulation.tick(times)
      return json(res, { ticks: simulation.exchange.market.ticks })
    }
  },
  {
    method: "POST",
    path: "/price",
    usage: "/price",
    summary: "move a symbol's last, mark and index price (JSON body {\"symbol\":\"cmt_btcusdt\",\"price\":\"64000.0\"}) and run what follows",
    serve: ({ simulation, res, text, now }) => {
      const fields = bodyFields(text)
      if (isFailure(fields)) return sendFailure(res, fields, now)
      const refused = simulation.setPrice(fields["symbol"], fields["price"])
      if (refused !== undefined) return sendFailure(res, badParameter(refused), now)
      return json(res, { symbol: fields["symbol"], price: fields["price"] })
    }
  },
  { method: "GET", path: "/faults", usage: "/faults", summary: "faults switched on", serve: ({ simulation, res }) => json(res, simulation.faults.list()) },
  {
    method: "PUT",
    path: "/faults/:operation",
    usage: "/faults/:operation",
    summary: "switch a fault on (JSON body, e.g. {\"kind\":\"status\",\"status\":503,\"times\":2})",
    serve: onFault((simulation, operation, text) => {
      const fault = decodeBody(FaultSchema, text)
      if (isFailure(fault)) return fault
      simulation.setFault(operation, fault)
      return undefined
    })
  },
  {
    method: "DELETE",
    path: "/faults/:operation",
    usage: "/faults/:operation",
    summary: "switch it off",
    serve: onFault((simulation, operation) => {
      simulation.setFault(operation, undefined)
      return undefined
    })
  },
  {
    method: "POST",
    path: "/budgets/reset",
    usage: "/budgets/reset",
    summary: "forget every budget charge and penalty",
    serve: ({ simulation, res }) => {
      simulation.budgets.reset()
      json(res, { reset: true })
    }
  },
  { method: "GET", path: "/accounts", usage: "/accounts", summary: "the demo accounts", serve: ({ simulation, res }) => json(res, { accounts: [...simulation.accounts.values()] }) }
]

const LISTING = ROUTES.map((route) => `${route.method.padEnd(7)}${`${ADMIN_PREFIX}${route.usage}`.padEnd(30)}${route.summary}`)

/** The `:name` segments of `path` if it matches the route's pattern. */
const match = (pattern: string, path: string): ReadonlyArray<string> | undefined => {
  const want = pattern.split("/")
  const got = path.split("/")
  if (want.length !== got.length) return undefined
  const params: Array<string> = []
  for (const [index, segment] of want.entries()) {
    const actual = got[index] ?? ""
    if (segment.startsWith(":")) {
      if (actual === "") return undefined
      params.push(actual)
    } else if (segment !== actual) return undefined
  }
  return params
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"])

export const isAdminPath = (path: string) => path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)

/** Serves an admin route: the caller and the route are checked before the body is read. */
export const handleAdmin = async (simulation: Simulation, req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> => {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? "")) {
    return sendFailure(res, failure("40018", "The simulator's admin routes answer loopback callers only", 403), simulation.now())
  }
  const relative = path.slice(ADMIN_PREFIX.length) || "/"
  const matching = ROUTES.filter((route) => match(route.path, relative) !== undefined)
  const route = matching.find((candidate) => candidate.method === req.method)
  if (route === undefined) {
    if (matching.length === 0) {
      return sendFailure(res, failure("404", `Not Found: no admin route ${req.method} ${relative}; see GET ${ADMIN_PREFIX}`, 404), simulation.now())
    }
    const allowed = matching.map((candidate) => candidate.method).join(", ")
    return sendFailure(res, failure("405", `Method Not Allowed: ${path} takes ${allowed}`, 405), simulation.now(), { allow: allowed })
  }
  const body = await readBody(req)
  if (body._tag === "Aborted") return
  const now = simulation.now()
  if (body._tag === "TooLarge") return sendFailure(res, bodyTooLarge, now)
  route.serve({ simulation, res, query, text: body.bytes.toString("utf8"), param: match(route.path, relative)?.[0] ?? "", now })
}
