/** What fills brings to the kernel: `/fills` and its paging buttons. */
import { codec, listFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { fills } from "./fills.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface Buttons {
    readonly Fills: { readonly symbol: string | undefined; readonly page: number }
  }
}

export const fillsFeature: Feature = {
  name: "fills",
  commands: [
    {
      name: "fills",
      access: "account",
      summary: "Recent fills: price, size, fee, maker or taker",
      usage: "/fills [symbol]",
      examples: ["/fills", "/fills eth"]
    }
  ],
  buttons: [codec("Fills", "fl", "account", listFields)],
  composer: (deps) => fills(deps)
}
