/**
 * The chats that turned notifications on, stored, each with its owner: the Telegram user who turned them on. The
 * watcher tells a chat of the account's events only while its owner is allowed to read the account, checked at each
 * telling; at a start the subscriptions of owners no longer allowed are dropped (`load`).
 *
 * Layout 2 keeps `{ chatId, owner }`. Layout 1 kept bare chat ids; `load` reads it once and rewrites it as layout 2:
 * `/notify` only ever answered in private chats, whose id is their user's id, so a positive id is its own owner; any
 * other id has no owner that could be checked and is dropped (logged by the caller).
 *
 * A store that cannot be read fails the read (`StoreReadError`): it is never "nobody subscribed", so the watcher keeps
 * its state over a failed read rather than forget it.
 */
import { Effect, Option, Schema } from "effect"
import { mayBeTold } from "../../kernel/access/access.js"
import type { AccessPolicy } from "../../kernel/access/access.js"
import * as Store from "../../kernel/store/Store.js"

export const Subscription = Schema.Struct({
  /** where the events are told */
  chatId: Schema.Number,
  /** who turned them on: their role is checked before each telling */
  owner: Schema.Number
})
export type Subscription = Schema.Schema.Type<typeof Subscription>

const Subscriptions = Store.entry("notify-chats", 2, Schema.Array(Subscription))
/** the layout before owners were kept: bare chat ids */
const ChatsV1 = Store.entry("notify-chats", 1, Schema.Array(Schema.Number))

/** chats that may have notifications on at once: each event is a message to each of them */
export const MAX_CHATS = 200

const none = (): ReadonlyArray<Subscription> => []

export const subscriptions: Effect.Effect<ReadonlyArray<Subscription>, Store.StoreReadError, Store.Store> = Effect.flatMap(
  Store.Store,
  (store) => Effect.map(store.get(Subscriptions), Option.getOrElse(none))
)

export interface Audience {
  /** the chats to tell, read from the store: those whose owner the policy admits now */
  readonly chats: Effect.Effect<ReadonlyArray<number>, Store.StoreReadError, Store.Store>
  /** whether a chat's owner (as last read) is still admitted, asked again as the events go out */
  readonly mayHear: (chatId: number) => boolean
}

/** Who hears the account's events: each chat while its owner may be told (`mayBeTold`), at the moment it is told. */
export const audience = (policy: AccessPolicy): Audience => {
  let owners: ReadonlyMap<number, number> = new Map()
  const mayHear = (chatId: number) => {
    const owner = owners.get(chatId)
    return owner !== undefined && mayBeTold(policy, owner)
  }
  return {
    chats: Effect.map(subscriptions, (list) => {
      owners = new Map(list.map((item) => [item.chatId, item.owner]))
      return list.map((item) => item.chatId).filter(mayHear)
    }),
    mayHear
  }
}

export const isOn = (chatId: number): Effect.Effect<boolean, Store.StoreReadError, Store.Store> =>
  Effect.map(subscriptions, (list) => list.some((item) => item.chatId === chatId))

/** Whether the user turned notifications on in some chat (they may always turn them off, whatever their role). */
export const owns = (owner: number): Effect.Effect<boolean, Store.StoreReadError, Store.Store> =>
  Effect.map(subscriptions, (list) => list.some((item) => item.owner === owner))

/** Turns notifications on or off for a chat, stored before it answers; `Full` when too many chats have them on. */
export const setNotify = (chatId: number, owner: number, on: boolean): Effect.Effect<"On" | "Off" | "Full", Store.StoreError, Store.Store> =>
  Effect.flatMap(Store.Store, (store) =>
    store.modify(Subscriptions, (current) => {
      const list = Option.getOrElse(current, none).filter((item) => item.chatId !== chatId)
      if (!on) return ["Off", list]
      return list.length >= MAX_CHATS ? ["Full", list] : ["On", [...list, { chatId, owner }]]
    }))

export interface Loaded {
  /** subscriptions kept */
  readonly kept: number
  /** the owners whose subscriptions were dropped: no longer allowed */
  readonly dropped: ReadonlyArray<number>
  /** layout 1 entries read and rewritten, none when the stored layout was current */
  readonly migrated: number
  /** layout 1 chat ids without an owner to check (not private chats), dropped */
  readonly ownerless: ReadonlyArray<number>
}

/** Layout 1 as layout 2: a private chat's id is its user's id; any other chat has no owner to check. */
const migrate = (chats: ReadonlyArray<number>) => ({
  owned: chats.filter((chatId) => chatId > 0).map((chatId): Subscription => ({ chatId, owner: chatId })),
  ownerless: chats.filter((chatId) => chatId <= 0)
})

/**
 * Run at a start, before the first update: rewrites a layout 1 entry as layout 2, and drops the subscriptions whose
 * owner the policy no longer admits (`mayBeTold`). Written only when something changed.
 */
export const load = (policy: AccessPolicy): Effect.Effect<Loaded, Store.StoreError | Store.StoreReadError, Store.Store> =>
  Effect.gen(function*() {
    const allowed = (owner: number) => mayBeTold(policy, owner)
    const store = yield* Store.Store
    const current = yield* store.get(Subscriptions)
    if (Option.isNone(current)) {
      const old = yield* store.get(ChatsV1)
      if (Option.isNone(old)) return { kept: 0, dropped: [], migrated: 0, ownerless: [] }
      const { owned, ownerless } = migrate(old.value)
      const kept = owned.filter((item) => allowed(item.owner))
      // one step: a replica that started at the same time may have migrated it, and a chat turned them on since
      const migrated = yield* store.modify(Subscriptions, (latest): readonly [boolean, ReadonlyArray<Subscription>] =>
        Option.match(latest, { onNone: () => [true, kept], onSome: (list) => [false, list] }))
      if (migrated) {
        return {
          kept: kept.length,
          dropped: owned.filter((item) => !allowed(item.owner)).map((item) => item.owner),
          migrated: old.value.length,
          ownerless
        }
      }
    }
    if (Option.isSome(current) && current.value.every((item) => allowed(item.owner))) return { kept: current.value.length, dropped: [], migrated: 0, ownerless: [] }
    return yield* store.modify(Subscriptions, (latest): readonly [Loaded, ReadonlyArray<Subscription>] => {
      const list = Option.getOrElse(latest, none)
      const kept = list.filter((item) => allowed(item.owner))
      const dropped = list.filter((item) => !allowed(item.owner)).map((item) => item.owner)
      return [{ kept: kept.length, dropped, migrated: 0, ownerless: [] }, kept]
    })
  })
