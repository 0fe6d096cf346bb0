/**
 * The command table: one entry per command, read by the help text, the Telegram menu (`setMyCommands`), the usage
 * replies, the metrics' labels and the registration of each command (which checks its access), so they cannot
 * disagree. The kernel knows no command: each feature registers its entries at start-up (`Feature.ts`).
 */
import type { MessageEntity } from "telegraf/types"

/**
 * Who may run a command. `open`: anyone (help, hints; no exchange call). `market`: market data, for the allowed
 * users or everyone when the market is public. `account`: the account's data, allowed users in a private chat.
 * `trade`: placing orders, trader users in a private chat.
 */
export const ACCESS = ["open", "market", "account", "trade"] as const

export type Access = (typeof ACCESS)[number]

export interface CommandSpec {
  readonly name: string
  readonly access: Access
  /** the line shown in Telegram's command menu */
  readonly summary: string
  readonly usage: string
  readonly examples: ReadonlyArray<string>
  /**
   * What a user may still do with what they own here (their notifications, their alerts) when their role no longer
   * allows the command, e.g. after the operator removed them: the command's owner check decides (see `onCommand`);
   * someone who owns nothing it acts on is refused as `access` says.
   */
  readonly ownerMay?: string
  /** false: left out of Telegram's command menu (a command Telegram itself sends, such as the first one of a chat) */
  readonly menu?: false
  /**
   * A message of this command that goes on over the next lines: in the console chat, the command with arguments that
   * `after` matches, sent alone, is joined by the lines typed next until an empty line; `prompt` says so
   */
  readonly continues?: { readonly after: RegExp; readonly prompt: string }
  /** the command that places orders: what the exchange's demo trading has is said by it */
  readonly placesOrders?: true
  /**
   * What this command shows or not of orders whose placement had no answer, said where the bot tells where to look
   * for them (for example "lists plan orders only")
   */
  readonly unknownOrders?: string
}

const table: Array<CommandSpec> = []
const byName = new Map<string, CommandSpec>()

/** Adds commands to the table, in the order help and the menu show them; a name registered twice stops the start. */
export const register = (specs: ReadonlyArray<CommandSpec>): void => {
  for (const spec of specs) {
    if (byName.has(spec.name) || !/^[a-z]{1,32}$/.test(spec.name)) throw new Error(`command /${spec.name}: taken or malformed`)
    table.push(spec)
    byName.set(spec.name, spec)
  }
}

/** Every registered command, in the order registered. */
export const commands = (): ReadonlyArray<CommandSpec> => table

export const isCommand = (name: string): boolean => byName.has(name)

/** A registered command's entry, or undefined for a name nobody registered. */
export const findCommand = (name: string): CommandSpec | undefined => byName.get(name)

/** A registered command's entry; a handler for a command nobody registered is a mistake in the bot. */
export const commandSpec = (name: string): CommandSpec => {
  const spec = byName.get(name)
  if (spec === undefined) throw new Error(`command /${name} is not registered`)
  return spec
}

/**
 * The bot command a message starts with, read as telegraf reads it to dispatch: the first entity, a `bot_command` at
 * offset 0, split at `@` (for example `/list@my_bot eth` → `{ name: "list", target: "my_bot" }`). Telegram ends the
 * entity at the first character that cannot be in a command, so (for example) `/list,` is the command `list`.
 */
export const commandOf = (
  message: { readonly text: string; readonly entities?: ReadonlyArray<MessageEntity> }
): { readonly name: string; readonly target: string | undefined } | undefined => {
  const entity = message.entities?.[0]
  if (entity?.type !== "bot_command" || entity.offset > 0) return undefined
  const [command = "", target] = message.text.slice(0, entity.length).split("@")
  return command.length > 1 ? { name: command.slice(1), target } : undefined
}
