/**
 * V3's order model against the domain's (docs/v3.md §1.9–§1.11): V3 says what an order does with `side` and
 * `positionSide` where V2 has one direction word, names how it executes with `timeInForce`, and words statuses in
 * capitals. The domain keeps V2's words on both versions; these tables translate.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"
import type { OrderStatus } from "../orders/Order.js"
import type { Execution } from "../orders/PlanOrder.js"

/** The four directions a new order can take, as the domain names them. */
export type Direction = "open_long" | "open_short" | "close_long" | "close_short"

export interface WireDirection {
  readonly side: "BUY" | "SELL"
  readonly positionSide: "LONG" | "SHORT"
}

/** Closing is the opposite side on the same position side (docs/v3.md §1.10). */
export const WIRE_DIRECTION: { readonly [D in Direction]: WireDirection } = {
  open_long: { side: "BUY", positionSide: "LONG" },
  open_short: { side: "SELL", positionSide: "SHORT" },
  close_long: { side: "SELL", positionSide: "LONG" },
  close_short: { side: "BUY", positionSide: "SHORT" }
}

/** The domain direction of a V3 `side` and `positionSide`; undefined for anything else. */
export const directionOf = (side: unknown, positionSide: unknown): Direction | undefined => {
  if (positionSide === "LONG") return side === "BUY" ? "open_long" : side === "SELL" ? "close_long" : undefined
  if (positionSide === "SHORT") return side === "SELL" ? "open_short" : side === "BUY" ? "close_short" : undefined
  return undefined
}

/**
 * V3 statuses in the domain's words. Partial fills may come as `NEW` with an executed quantity or as
 * `PARTIALLY_FILLED`; expired and rejected orders are final without filling, as `canceled` is. An unlisted status is
 * kept as sent.
 */
export const ORDER_STATUS: Readonly<Record<string, OrderStatus>> = {
  PENDING: "pending",
  NEW: "open",
  PARTIALLY_FILLED: "open",
  FILLED: "filled",
  CANCELING: "canceling",
  CANCELED: "canceled",
  EXPIRED: "canceled",
  REJECTED: "canceled",
  UNTRIGGERED: "untriggered"
}

/** How an order executes: the domain's words (V2's `order_type`) and V3's `timeInForce`. */
export type TimeInForce = "GTC" | "IOC" | "FOK" | "POST_ONLY"

export const TIME_IN_FORCE: { readonly [E in Execution]: TimeInForce } = {
  normal: "GTC",
  post_only: "POST_ONLY",
  fok: "FOK",
  ioc: "IOC"
}

export const EXECUTION_OF: { readonly [T in TimeInForce]: Execution } = {
  GTC: "normal",
  POST_ONLY: "post_only",
  FOK: "fok",
  IOC: "ioc"
}

export const orderStatusOf = (wire: string): string => ORDER_STATUS[wire] ?? wire

/**
 * V3 client ids: 1–36 of letters, digits and `.:/_-`, required on every placement. The domain allows up to 40
 * characters (V2's rule); a longer one is refused before sending on V3.
 */
export const V3_CLIENT_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/

const clientIdMessage = (actual: unknown) => `on the V3 API a client_oid is 1–36 letters, digits or . : / _ -, got ${JSON.stringify(actual)}`

export const ClientIdV3 = Schema.String.pipe(Schema.pattern(V3_CLIENT_ID, { message: (issue) => clientIdMessage(issue.actual) }))

/**
 * The issue of a client id V3 refuses (in request schemas, at the caller's field `path`); undefined when it is fine
 * or absent.
 */
export const clientIdIssue = (
  value: string | undefined,
  path: ParseResult.Path,
  ast: AST.AST
): ParseResult.ParseIssue | undefined =>
  value === undefined || V3_CLIENT_ID.test(value)
    ? undefined
    : new ParseResult.Pointer(path, value, new ParseResult.Type(ast, value, clientIdMessage(value)))
