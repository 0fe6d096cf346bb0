/** What account brings to the kernel: `/balance`, `/leverage` and `/margin`, and the balance's Refresh. */
import { codec, noFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { account } from "./account.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface WriteKinds {
    /** changes of a market's leverage and margin mode */
    readonly leverage: 3
    /** margin added to or taken from an isolated position */
    readonly margin: 4
  }
  interface Buttons {
    readonly Balance: Record<never, never>
  }
}

export const accountFeature: Feature = {
  name: "account",
  commands: [
    {
      name: "balance",
      access: "account",
      summary: "Futures equity, available, margin and PnL; spot assets",
      usage: "/balance",
      examples: ["/balance"]
    },
    {
      name: "leverage",
      access: "trade",
      summary: "A market's leverage and margin mode; change them after a confirmation",
      usage: "/leverage <symbol> [n] [cross|isolated]",
      examples: ["/leverage btc", "/leverage btc 20", "/leverage eth 5 isolated"]
    },
    {
      name: "margin",
      access: "trade",
      summary: "Add margin to an isolated position or take some out, after a confirmation",
      usage: "/margin <add|reduce> <symbol> [long|short] <amount>",
      examples: ["/margin add btc 50", "/margin reduce eth short 20.5"]
    }
  ],
  buttons: [codec("Balance", "bl", "account", noFields)],
  writes: [{ kind: "leverage", code: 3 }, { kind: "margin", code: 4 }],
  composer: (deps, settings) => account(deps, settings.limits)
}
