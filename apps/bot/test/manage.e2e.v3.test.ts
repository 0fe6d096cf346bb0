/** The order-management suite with the bot speaking the exchange's API V3 to the simulator (docs/v3.md). */
import { speak } from "./harness.js"

speak("v3")
await import("./manage.e2e.test.js?v3")
