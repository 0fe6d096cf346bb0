/**
 * Turns of the event loop for the bot's handlers: a handler that waits for its turn goes on in a later turn of the
 * loop than the one before it, one handler a turn, so a burst (a thousand updates at once, or every handler waiting
 * on one shared read going on when it arrives) never holds the loop for all of them together: timers, sockets and the
 * next webhook request go in between. A button press (a Confirm among them) takes its turn before the commands
 * waiting.
 */

const presses: Array<() => void> = []
const commands: Array<() => void> = []
let scheduled = false

const schedule = (): void => {
  if (scheduled) return
  scheduled = true
  // an immediate set while immediates run goes in the loop's next turn, after its timers and sockets
  setImmediate(() => {
    scheduled = false
    const next = presses.shift() ?? commands.shift()
    if (presses.length + commands.length > 0) schedule()
    next?.()
  })
}

/** Resolves in a later turn of the loop, after the handlers that asked before (a press: the presses before). */
export const turn = (press: boolean): Promise<void> =>
  new Promise((resolve) => {
    const line = press ? presses : commands
    line.push(resolve)
    schedule()
  })
