/** What open orders bring to the kernel: `/open` and `/cancel`, and their buttons. */
import { codec, listFields, orderFields, symbolFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { open } from "./open.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface WriteKinds {
    /** cancels of open orders */
    readonly open: 0
  }
  interface Buttons {
    readonly Open: { readonly symbol: string | undefined; readonly page: number }
    /** asks to cancel one open order (a confirmation follows) */
    readonly CancelOrder: { readonly orderId: string; readonly symbol: string }
    /** asks to cancel every open order of the symbol */
    readonly CancelAll: { readonly symbol: string }
  }
}

export const openFeature: Feature = {
  name: "open",
  commands: [
    {
      name: "open",
      access: "account",
      summary: "Open orders, each with Cancel; Cancel all per market",
      usage: "/open [symbol]",
      examples: ["/open", "/open btc"]
    },
    {
      name: "cancel",
      access: "trade",
      summary: "Cancel an open order by its id or client id, or all of them, after a confirmation",
      usage: "/cancel <order id|client id|all> [symbol]",
      examples: ["/cancel 8800000123", "/cancel tdbk3j9x-1", "/cancel all btc"]
    }
  ],
  buttons: [
    codec("Open", "op", "account", listFields),
    codec("CancelOrder", "oc", "trade", orderFields),
    codec("CancelAll", "oa", "trade", symbolFields)
  ],
  writes: [{ kind: "open", code: 0 }],
  composer: (deps) => open(deps)
}
