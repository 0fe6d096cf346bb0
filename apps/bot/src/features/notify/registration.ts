/** What notify brings to the kernel: `/notify`. */
import type { Feature } from "../../kernel/ui/Feature.js"
import { notify } from "./notify.js"

export const notifyFeature: Feature = {
  name: "notify",
  commands: [
    {
      name: "notify",
      access: "account",
      summary: "Messages when orders fill, plans trigger, positions change",
      usage: "/notify [on|off]",
      examples: ["/notify on", "/notify"],
      ownerMay: "turn their notifications off"
    }
  ],
  buttons: [],
  composer: (deps) => notify(deps)
}
