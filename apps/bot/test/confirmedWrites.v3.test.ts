/** The confirmed-writes suite (confirmedWrites.test.ts) with the bot speaking the exchange's API V3 to the simulator. */
import { speak } from "./harness.js"

speak("v3")
await import("./confirmedWrites.test.js?v3")
