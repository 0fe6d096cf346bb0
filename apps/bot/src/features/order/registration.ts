/** What order brings to the kernel: `/order` (a batch after a checked preview) and the preview's Confirm and Cancel. */
import { codec, idFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { order } from "./order.js"
import type { OrderSettings } from "./order.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface Buttons {
    /** places a previewed batch */
    readonly Confirm: { readonly id: string }
    /** drops a previewed batch */
    readonly Cancel: { readonly id: string }
  }
}

declare module "../../kernel/ui/Feature.js" {
  interface FeatureSettings {
    /** what guards an order between its preview and the exchange */
    readonly orders: OrderSettings
  }
}

export const orderFeature: Feature = {
  name: "order",
  commands: [
    {
      name: "order",
      access: "trade",
      summary: "Place up to 20 orders, or 5 trigger orders, after a checked preview",
      usage:
        "/order <symbol> [cross|isolated], then one order per line (or separated by ;):\n" +
        "<open_long|open_short|close_long|close_short> <size> (@ <price> | market) [post|fok|ioc] [tp <price>] [sl <price>] [trigger <price>]",
      examples: [
        "/order btc; open_long 0.01 @ 65000 tp 70000 sl 60000; close_short 0.02 market",
        "/order eth isolated; open_short 0.5 @ 3500 post",
        "/order btc; open_long 0.01 market trigger 66000"
      ],
      placesOrders: true,
      // `/order btc` or `/order eth isolated` alone: its orders follow on the next lines
      continues: { after: /^\S+(\s+(cross|isolated))?$/i, prompt: "one order per line; an empty line sends them" }
    }
  ],
  buttons: [
    codec("Confirm", "c", "trade", idFields, () => true),
    codec("Cancel", "x", "trade", idFields)
  ],
  composer: (deps, settings) => order(deps, settings.orders, settings.limits)
}
