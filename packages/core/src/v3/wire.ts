/**
 * V3's endpoints (docs/v3.md §1.4): the defaults of every endpoint with V3's envelope. What else V3 writes differently
 * from V2 — symbols as `BTCUSDT`, ids as JSON numbers in some request bodies — is shared with the domain records and
 * lives in internal/codecs.ts; callers and answers keep the specification's `cmt_btcusdt` on both versions.
 */
import * as Wire from "../Wire.js"
import type { OperationName } from "../Operations.js"
import type { Endpoint, EndpointFields, WireParams } from "../Wire.js"

/** A V3 endpoint: the defaults of every endpoint (Wire.ts) with V3's envelope, errors as a negative `code`. */
export const endpoint = <P, A, I extends WireParams, O>(fields: EndpointFields<P, A, I, O>): Endpoint<P, A> => Wire.endpoint({ envelope: "v3", ...fields })

/** An operation's own V3 request: its write keys are the operation's (Operations.ts), its envelope V3's. */
export const request = <K extends OperationName, I extends WireParams, O>(name: K, fields: Parameters<typeof Wire.request<K, I, O>>[1]) =>
  Wire.request(name, { envelope: "v3", ...fields })
