/**
 * Adds margin to an isolated position or takes some out of it: V2 `POST /capi/v2/account/adjustMargin` (docs/trading.md
 * §8.4, IP 15 / UID 30), the amount signed (positive adds, negative reduces); V3 `POST /capi/v3/account/positionMargin`
 * (docs/v3.md §14.3, IP 15), the amount positive and `type` 1 (add) or 2 (reduce). Both answer the `{ code: "200",
 * msg: "success" }` status body: a write that resolves to nothing, never retried, as a leverage change. The position
 * is named by its exchange id (`positionId` of `positions()`), sent as a JSON number of its exact digits.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Schema from "effect/Schema"
import { DecimalFromString } from "../Decimal.js"
import { PositiveDecimal } from "../orders/BatchOrder.js"
import { DigitString } from "../Params.js"
import { LongId } from "../internal/codecs.js"
import type { RecordType } from "../internal/recordType.js"

export const MarginDirection = Schema.Literal("add", "reduce")
export type MarginDirection = Schema.Schema.Type<typeof MarginDirection>

export const AdjustMarginRequest = Schema.Struct({
  /** the isolated position's exchange id (`positionId` of `positions()`); wire `isolatedPositionId` */
  positionId: DigitString,
  /** `add` moves margin from the available balance into the position, `reduce` back out of it */
  direction: MarginDirection,
  /** how much margin to move, in the margin coin (USDT), above zero */
  amount: PositiveDecimal
})
export type AdjustMarginRequest = RecordType<typeof AdjustMarginRequest>

/** V2's body: `{ isolatedPositionId, collateralAmount }`, the amount negative to reduce; `coinId` left to its default (USDT). */
export const V2AdjustMarginBody = Schema.transform(
  Schema.Struct({ isolatedPositionId: LongId, collateralAmount: DecimalFromString }),
  Schema.typeSchema(AdjustMarginRequest),
  {
    strict: true,
    decode: (wire) => ({
      positionId: wire.isolatedPositionId,
      direction: BigDecimal.isNegative(wire.collateralAmount) ? "reduce" as const : "add" as const,
      amount: BigDecimal.abs(wire.collateralAmount)
    }),
    encode: (request) => ({
      isolatedPositionId: request.positionId,
      collateralAmount: request.direction === "reduce" ? BigDecimal.negate(request.amount) : request.amount
    })
  }
)
