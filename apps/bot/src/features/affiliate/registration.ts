/** What affiliate brings to the kernel: `/affiliate`, its paging buttons, and the users of a query kept for paging. */
import { codec, num, optNum, readNum, readOptTime } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { Duration } from "effect"
import { affiliate } from "./affiliate.js"
import * as AffiliateBook from "./AffiliateBook.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface Buttons {
    readonly Affiliate: {
      readonly uid: string | undefined
      readonly from: number | undefined
      readonly to: number | undefined
      readonly page: number
    }
  }
}

declare module "../../kernel/ui/Feature.js" {
  interface FeatureCaches {
    /** how long the affiliate users of a query are kept for paging and export (default 60 s) */
    readonly affiliateTtlMs?: number
  }
}

export const affiliateFeature: Feature<AffiliateBook.AffiliateBook> = {
  name: "affiliate",
  commands: [
    {
      name: "affiliate",
      access: "account",
      summary: "Invited users' volumes and commission; csv for a file",
      usage: "/affiliate [csv] [uid] [from] [to]",
      examples: ["/affiliate", "/affiliate 30d", "/affiliate csv 2024-05-01 2024-05-31"]
    }
  ],
  buttons: [
    codec("Affiliate", "a", "account", {
      write: ({ page, uid, from, to }) => [num(page), uid ?? "", optNum(from), optNum(to)],
      read: (fields) => {
        const [page, uid = "", from, to] = fields
        const pageNumber = readNum(page)
        const fromTime = readOptTime(from)
        const toTime = readOptTime(to)
        if (fields.length !== 4 || pageNumber === undefined || fromTime === null || toTime === null || !/^\d{0,20}$/.test(uid)) return undefined
        return { page: pageNumber, uid: uid === "" ? undefined : uid, from: fromTime, to: toTime }
      }
    })
  ],
  composer: (deps) => affiliate(deps),
  layer: (caches) => AffiliateBook.layer(Duration.millis(caches.affiliateTtlMs ?? 60_000))
}
