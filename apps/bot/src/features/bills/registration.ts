/** What bills brings to the kernel: `/bills`, its paging buttons, and the spot ledger's coin names. */
import { SpotBill } from "@tradedesk/core"
import { codec, num, optNum, readChoice, readNum, readOptTime } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { bills } from "./bills.js"
import * as CoinDirectory from "./CoinDirectory.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface Buttons {
    readonly Bills: {
      readonly coinId: number | undefined
      readonly bizType: SpotBill.BizType | undefined
      readonly after: number | undefined
      /** show bills created at or before this time (epoch ms); undefined for the newest */
      readonly before: number | undefined
      /** bills at exactly `before` already shown, to step over */
      readonly skip: number
    }
  }
}

export const billsFeature: Feature<CoinDirectory.CoinDirectory> = {
  name: "bills",
  commands: [
    {
      name: "bills",
      access: "account",
      summary: "Spot ledger entries; csv for a file",
      usage: "/bills [csv] [coin] [type] [since], or /bills types",
      examples: ["/bills", "/bills usdt deposit 7d", "/bills csv 2024-05-01", "/bills types"]
    }
  ],
  buttons: [
    codec("Bills", "b", "account", {
      write: (query) => [
        optNum(query.coinId),
        query.bizType === undefined ? "" : String(SpotBill.BizTypes.indexOf(query.bizType)),
        optNum(query.after),
        optNum(query.before),
        num(query.skip)
      ],
      read: (fields) => {
        const [coin, typeIndex = "", after, before, skip] = fields
        const coinId = coin === "" ? undefined : readNum(coin) ?? null
        const afterTime = readOptTime(after)
        const beforeTime = readOptTime(before)
        const skipCount = readNum(skip)
        const bizType = typeIndex === "" ? undefined : readChoice(SpotBill.BizTypes, typeIndex)
        if (
          fields.length !== 5 || coinId === null || afterTime === null || beforeTime === null || skipCount === undefined ||
          (typeIndex !== "" && bizType === undefined)
        ) return undefined
        return { coinId, bizType, after: afterTime, before: beforeTime, skip: skipCount }
      }
    })
  ],
  composer: (deps) => bills(deps),
  layer: () => CoinDirectory.layer
}
