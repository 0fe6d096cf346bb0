/** What orders brings to the kernel: `/orders` (plan orders), its paging, history and Cancel buttons. */
import { codec, listFields, orderFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { orders } from "./orders.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface WriteKinds {
    /** cancels of plan orders */
    readonly plan: 1
  }
  interface Buttons {
    readonly Orders: { readonly symbol: string | undefined; readonly page: number }
    readonly PlanHistory: { readonly symbol: string; readonly page: number }
    /** asks to cancel one working plan order */
    readonly CancelPlan: { readonly orderId: string; readonly symbol: string }
  }
}

export const ordersFeature: Feature = {
  name: "orders",
  commands: [
    {
      name: "orders",
      access: "account",
      summary: "Working plan (trigger) orders, each with Cancel; finished ones with history",
      usage: "/orders [symbol] [history]",
      examples: ["/orders", "/orders btc", "/orders btc history"],
      unknownOrders: "lists plan orders only"
    }
  ],
  buttons: [
    codec("Orders", "o", "account", listFields),
    codec("PlanHistory", "oh", "account", {
      write: listFields.write,
      read: (fields) => {
        const listed = listFields.read(fields)
        return listed?.symbol === undefined ? undefined : { page: listed.page, symbol: listed.symbol }
      }
    }),
    codec("CancelPlan", "pc", "trade", orderFields)
  ],
  writes: [{ kind: "plan", code: 1 }],
  composer: (deps) => orders(deps)
}
