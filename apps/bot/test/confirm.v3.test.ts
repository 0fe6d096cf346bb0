/** The Confirm suite (confirm.test.ts) with the bot speaking the exchange's API V3 to the simulator. */
import { speak } from "./harness.js"

speak("v3")
await import("./confirm.test.js?v3")
