/** The chats that turned notifications on, stored: the watcher tells them of the account's events. */
import { Effect, Option, Schema } from "effect"
import * as Store from "../../kernel/Store.js"

const Chats = Store.entry("notify-chats", 1, Schema.Array(Schema.Number))

/** chats that may have notifications on at once: each event is a message to each of them */
export const MAX_CHATS = 200

export const chats: Effect.Effect<ReadonlyArray<number>, never, Store.Store> = Effect.flatMap(
  Store.Store,
  (store) => Effect.map(store.get(Chats), Option.getOrElse((): ReadonlyArray<number> => []))
)

export const isOn = (chatId: number): Effect.Effect<boolean, never, Store.Store> => Effect.map(chats, (list) => list.includes(chatId))

/** Turns notifications on or off for a chat, stored before it answers; `Full` when too many chats have them on. */
export const setNotify = (chatId: number, on: boolean): Effect.Effect<"On" | "Off" | "Full", Store.StoreError, Store.Store> =>
  Effect.flatMap(Store.Store, (store) =>
    store.modify(Chats, (current) => {
      const list = Option.getOrElse(current, (): ReadonlyArray<number> => []).filter((chat) => chat !== chatId)
      if (!on) return ["Off", list]
      return list.length >= MAX_CHATS ? ["Full", list] : ["On", [...list, chatId]]
    }))
