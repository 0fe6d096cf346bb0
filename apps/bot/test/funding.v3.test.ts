/** The /funding suite (funding.test.ts) with the bot speaking the exchange's API V3 to the simulator. */
import { speak } from "./harness.js"

speak("v3")
await import("./funding.test.js?v3")
