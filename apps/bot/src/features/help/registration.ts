/** What help brings to the kernel: `/help` and `/start`, and the Help button of the welcome. */
import { codec, noFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { help, unknown } from "./help.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface Buttons {
    /** the /help text, from /start's welcome */
    readonly Help: Record<never, never>
  }
}

export const helpFeature: Feature = {
  name: "help",
  commands: [
    {
      name: "help",
      access: "open",
      summary: "What the bot does, with examples",
      usage: "/help",
      examples: ["/help"]
    },
    {
      name: "start",
      access: "open",
      summary: "Start here",
      usage: "/start",
      examples: ["/start"],
      menu: false
    }
  ],
  buttons: [codec("Help", "h", "open", noFields)],
  composer: (deps, settings) => help(deps, settings.limits),
  fallback: (deps) => unknown(deps)
}
