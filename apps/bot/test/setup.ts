// Every test runs with the bot's features registered (commands, buttons), as the application registers them at start,
// and starts on V2 whatever a file before it in the same worker spoke (the fast tier's files share their modules).
import "../src/features.js"
import { speak } from "./harness.js"

speak("v2")
