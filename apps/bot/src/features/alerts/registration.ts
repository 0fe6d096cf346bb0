/** What alerts brings to the kernel: `/alert` and `/alerts`, and the Delete buttons. */
import { codec, idFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { alerts } from "./alerts.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface Buttons {
    readonly AlertDelete: { readonly id: string }
  }
}

export const alertsFeature: Feature = {
  name: "alerts",
  commands: [
    {
      name: "alert",
      access: "account",
      summary: "A price alert that fires once",
      usage: "/alert <symbol> <above|below|>|<> <price>",
      examples: ["/alert btc above 70000", "/alert eth < 3000"]
    },
    {
      name: "alerts",
      access: "account",
      summary: "Your price alerts, with Delete buttons",
      usage: "/alerts",
      examples: ["/alerts"],
      ownerMay: "list and delete their alerts"
    }
  ],
  buttons: [codec("AlertDelete", "r", "account", idFields)],
  composer: (deps) => alerts(deps)
}
