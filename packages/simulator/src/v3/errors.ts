/**
 * V3's refusals (docs/v3.md §1.5): an HTTP 4xx or 5xx with `{ code, msg }`, the code a negative number from the
 * catalogue; and the string codes of per-item failures inside a 200 (`success: false`, `errorCode`, `errorMessage`),
 * which the exchange does not catalogue: the simulator uses the catalogue's names for parameter errors and the names
 * below for what its matching engine refuses.
 */
import type { Failure } from "../failures.js"
import { failure } from "../failures.js"

/** The catalogue's codes the simulator answers, with their names (an item failure's `errorCode`). */
export const Codes = {
  UNKNOWN_ERROR: -1000,
  ACCESS_KEY_EMPTY: -1040,
  ACCESS_SIGN_EMPTY: -1041,
  ACCESS_TIMESTAMP_EMPTY: -1042,
  INVALID_ACCESS_TIMESTAMP: -1043,
  INVALID_ACCESS_KEY: -1044,
  INVALID_CONTENT_TYPE: -1045,
  ACCESS_TIMESTAMP_EXPIRED: -1046,
  API_AUTH_ERROR: -1047,
  API_KEY_OR_PASSPHRASE_INCORRECT: -1049,
  INSUFFICIENT_PERMISSIONS: -1052,
  /** also what a margin move beyond the movable amount was seen answered (`FAILED_PRECONDITION: Move margin …`) */
  SYSTEM_ERROR: -1054,
  ILLEGAL_IP: -1056,
  INVALID_TIME_IN_FORCE: -1115,
  INVALID_ORDER_TYPE: -1116,
  INVALID_SIDE: -1117,
  INVALID_SYMBOL: -1121,
  INVALID_PARAM_COMBINATION: -1128,
  INVALID_JSON: -1135,
  PARAM_VALIDATE_ERROR: -1140,
  PARAM_EMPTY: -1141,
  PARAM_ERROR: -1142,
  REQUEST_METHOD_NOT_SUPPORTED: -1150,
  DECIMAL_PRECISION_ERROR: -1160,
  QUERY_TIME_OUT_OF_RANGE: -1170,
  START_TIME_AFTER_END_TIME: -1171,
  CLIENT_OID_LENGTH_ERROR: -1180,
  CONTRACT_ORDER_NOT_EXIST: -3200,
  CONTRACT_LEVERAGE_ERROR: -3313
} as const
export type CodeName = keyof typeof Codes

/**
 * HTTP 429 has no code in the catalogue (only the status): -1003, the code of the model V3 copies, so that the body
 * still reads as an error by its negative code.
 */
export const TOO_MANY_REQUESTS = -1003

const NAMES = new Map<number, CodeName>(Object.entries(Codes).map(([name, code]) => [code, name as CodeName]))

const AUTH: ReadonlySet<number> = new Set([-1040, -1041, -1042, -1043, -1044, -1046, -1047, -1049])

/** A V3 refusal: 401 for authentication, 403 for permission, 500 for the unknown error, else 400 unless given. */
export const refusal = (name: CodeName, msg: string, status?: number): Failure => {
  const code = Codes[name]
  return failure(code, msg, status ?? (AUTH.has(code) ? 401 : code === -1052 || code === -1056 ? 403 : code === -1000 ? 500 : 400))
}

export const tooManyRequests: Failure = failure(TOO_MANY_REQUESTS, "Too many requests; the budget is penalised for a while", 429)

export const notSupported = (method: string, status = 405): Failure =>
  refusal("REQUEST_METHOD_NOT_SUPPORTED", `Request method '${method}' not supported`, status)

/** V2 codes the shared code paths (authentication, body reading, budgets, the matching engine) answer, by V3 meaning. */
const FROM_V2: Readonly<Record<string, CodeName>> = {
  "40001": "ACCESS_KEY_EMPTY",
  "40002": "ACCESS_SIGN_EMPTY",
  "40003": "ACCESS_TIMESTAMP_EMPTY",
  "40005": "INVALID_ACCESS_TIMESTAMP",
  "40006": "INVALID_ACCESS_KEY",
  "40007": "INVALID_CONTENT_TYPE",
  "40008": "ACCESS_TIMESTAMP_EXPIRED",
  "40009": "API_AUTH_ERROR",
  // a missing passphrase reads as a wrong one
  "40011": "API_KEY_OR_PASSPHRASE_INCORRECT",
  "40012": "API_KEY_OR_PASSPHRASE_INCORRECT",
  "40014": "INSUFFICIENT_PERMISSIONS",
  "40015": "UNKNOWN_ERROR",
  "40017": "PARAM_ERROR",
  "40018": "ILLEGAL_IP",
  "40102": "INVALID_SYMBOL",
  "40707": "START_TIME_AFTER_END_TIME",
  "43001": "CONTRACT_ORDER_NOT_EXIST"
}

/** A refusal as V3 answers it: V3 ones as they are, V2 ones by meaning. */
export const toV3 = (refused: Failure): Failure => {
  if (typeof refused.code === "number") return refused
  if (refused.status === 429) return tooManyRequests
  const name = FROM_V2[refused.code]
  // a plain 400 takes the status of its V3 meaning (401 for authentication, 403 for permission); others stay (413, 500)
  return refusal(name ?? "UNKNOWN_ERROR", refused.msg, refused.status === 400 ? undefined : refused.status)
}

/** What the matching engine refuses (V2 codes), as an item failure's `errorCode`. */
const ITEM_CODES: Readonly<Record<string, string>> = {
  "40305": "DUPLICATE_CLIENT_ORDER_ID",
  "40017": "PARAM_ERROR",
  "43002": "ORDER_REJECTED",
  "43005": "QUANTITY_OUT_OF_RANGE",
  "43006": "QUANTITY_OUT_OF_RANGE",
  "43007": "DECIMAL_PRECISION_ERROR",
  "43008": "PRICE_OUT_OF_RANGE",
  "43009": "PRICE_OUT_OF_RANGE",
  "43010": "DECIMAL_PRECISION_ERROR",
  "43011": "ORDER_VALUE_OUT_OF_RANGE"
}

/** A refusal as the `errorCode` string of an item failure. */
export const itemCode = (refused: Failure): string =>
  typeof refused.code === "number" ? NAMES.get(refused.code) ?? "UNKNOWN_ERROR" : ITEM_CODES[refused.code] ?? "ORDER_REJECTED"
