/** What positions brings to the kernel: `/positions`, its Refresh and its Close buttons. */
import { codec, noFields, symbolFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { positions } from "./positions.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface WriteKinds {
    /** closes of positions */
    readonly position: 2
  }
  interface Buttons {
    readonly Positions: Record<never, never>
    /** asks to close the symbol's positions at market */
    readonly ClosePosition: { readonly symbol: string }
  }
}

export const positionsFeature: Feature = {
  name: "positions",
  commands: [
    {
      name: "positions",
      access: "account",
      summary: "Open positions with PnL and liquidation price; Close per market",
      usage: "/positions",
      examples: ["/positions"]
    }
  ],
  buttons: [
    codec("Positions", "ps", "account", noFields),
    codec("ClosePosition", "pz", "trade", symbolFields)
  ],
  writes: [{ kind: "position", code: 2 }],
  composer: (deps) => positions(deps)
}
