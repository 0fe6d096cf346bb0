/**
 * What a feature brings to the kernel: its commands (the command table: help, the menu, usage replies, metrics) and
 * its kinds of buttons (their codecs). The kernel imports no feature; the application registers each feature once, at
 * start-up, before the first view is made. A feature's services reach the runtime as a layer (`BotRuntime.make`).
 */
import * as CallbackData from "./CallbackData.js"
import * as Commands from "./commands.js"
import type { CommandSpec } from "./commands.js"

export interface Feature {
  readonly commands: ReadonlyArray<CommandSpec>
  readonly buttons: ReadonlyArray<CallbackData.ButtonCodec>
}

/** Registers the features, in the order help and Telegram's menu list their commands. */
export const register = (features: ReadonlyArray<Feature>): void => {
  for (const feature of features) {
    Commands.register(feature.commands)
    CallbackData.register(feature.buttons)
  }
}
