import type { OperationName, Unsupported } from "../Wire.js"

/** An operation not carried over V3 yet: it fails with an UnsupportedOperationError naming the way out. */
export const notYet = (name: OperationName): Unsupported => ({
  _tag: "Unsupported",
  name,
  reason: "this version of tradedesk does not carry it over V3 yet; use apiVersion \"v2\""
})
