/**
 * What an inline button carries: a typed value, encoded in at most 64 bytes (Telegram's limit). A view's buttons carry
 * the whole state of the view they show (page, filters, cursor), so a press needs no memory of earlier messages;
 * only confirmations (of orders, cancels, closes, leverage) point into the bot's stores, by a short id.
 *
 * The kernel knows no feature's buttons: it holds the registry and the pieces codecs are made of. Each feature adds
 * its kinds to `Buttons` (declaration merging, in its `registration.ts`) and registers their codecs at start-up; the
 * kernel's own kind is `Write`. An encoded button is its codec's prefix and fields joined by `|`.
 */
import type { Access } from "./commands.js"
import { isPlainSymbol } from "../exchange/symbols.js"

/**
 * The kinds of confirmed single write a Write button may point to, each with its code on the button: each feature adds
 * its own (`declare module "…/kernel/ui/CallbackData.js" { interface WriteKinds { readonly <kind>: <code> } }`) and
 * registers them (`Feature.writes`). A code is fixed for good: buttons already in chats carry it.
 */
export interface WriteKinds {}

export type WriteKind = keyof WriteKinds & string

/** One kind of write and its code, as a feature registers it. */
export type WriteCode = { readonly [K in WriteKind]: { readonly kind: K; readonly code: WriteKinds[K] } }[WriteKind]

/**
 * Every kind of button by its tag, with what it carries. The kernel declares its own; each feature adds its kinds
 * with `declare module "…/kernel/ui/CallbackData.js" { interface Buttons { … } }`.
 */
export interface Buttons {
  /** Confirm (`go`) or Back on a feature's single write waiting for Confirm */
  readonly Write: { readonly feature: WriteKind; readonly id: string; readonly go: boolean }
}

export type Tag = keyof Buttons

/** The value of one kind of button. */
export type ButtonOf<T extends Tag> = { readonly _tag: T } & Buttons[T]

export type CallbackData = { [T in Tag]: ButtonOf<T> }[Tag]

export const MAX_BYTES = 64

/** How what one kind of button carries goes into text fields and back. */
export interface Fields<P> {
  write(payload: P): ReadonlyArray<string>
  /** undefined for anything `write` did not make (old formats, tampering) */
  read(fields: ReadonlyArray<string>): P | undefined
}

export interface ButtonCodec<T extends Tag = Tag> {
  readonly tag: T
  /** the first field of the encoded text, unique over the bot; never changed, or older buttons stop working */
  readonly prefix: string
  /** who may press it: the same rule as the command that made it */
  readonly access: Access
  readonly fields: Fields<Buttons[T]>
  /**
   * Set for a button that answers a confirmation (its Confirm, its Back): the outcome of its press goes out whatever
   * the chat's line holds, and a press for which this is true (one that carries out the confirmed write) does not
   * count against the admission limit.
   */
  confirms?(payload: Buttons[T]): boolean
}

export const codec = <T extends Tag>(
  tag: T,
  prefix: string,
  access: Access,
  fields: Fields<Buttons[T]>,
  confirms?: (payload: Buttons[T]) => boolean
): ButtonCodec<T> => (confirms === undefined ? { tag, prefix, access, fields } : { tag, prefix, access, fields, confirms })

const byTag = new Map<string, ButtonCodec>()
const byPrefix = new Map<string, ButtonCodec>()

/** Adds kinds of buttons; a tag or prefix registered twice is a mistake in the bot and stops it at start-up. */
export const register = (codecs: ReadonlyArray<ButtonCodec>): void => {
  for (const added of codecs) {
    if (byTag.has(added.tag) || byPrefix.has(added.prefix) || !/^[a-z]{1,3}$/.test(added.prefix)) {
      throw new Error(`button ${added.tag} (${added.prefix}): its tag or prefix is taken or malformed`)
    }
    byTag.set(added.tag, added)
    byPrefix.set(added.prefix, added)
  }
}

const codecOf = (data: CallbackData): ButtonCodec => {
  const found = byTag.get(data._tag)
  if (found === undefined) throw new Error(`button ${data._tag} is not registered`)
  return found
}

export const encode = (data: CallbackData): string => [codecOf(data).prefix, ...codecOf(data).fields.write(data)].join("|")

/**
 * Whether a value can go on a button: encoded within 64 bytes, and read back as it was made. A value built from odd
 * data (a symbol no request could carry, a time before 1970) cannot, and its button is left out.
 */
export const fits = (data: CallbackData): boolean => {
  const encoded = encode(data)
  if (Buffer.byteLength(encoded) > MAX_BYTES) return false
  const decoded = decode(encoded)
  if (decoded === undefined) return false
  // every value is a flat record of strings and numbers
  const fields = new Set([...Object.keys(data), ...Object.keys(decoded)])
  return [...fields].every((field) => Reflect.get(data, field) === Reflect.get(decoded, field))
}

/** The value of a button press, or undefined for anything the bot did not make (old formats, tampering). */
export const decode = (text: string): CallbackData | undefined => {
  if (text.length > MAX_BYTES) return undefined
  const [prefix = "", ...fields] = text.split("|")
  const found = byPrefix.get(prefix)
  const payload = found?.fields.read(fields)
  // the registry pairs each prefix with the codec of one tag, so the payload is that tag's
  return found === undefined || payload === undefined ? undefined : ({ ...payload, _tag: found.tag } as CallbackData)
}

/** Who may press a button: the same rule as the command that made it. */
export const access = (data: CallbackData): Access => codecOf(data).access

/** Whether a button answers a confirmation (its outcome goes out whatever the chat's line holds). */
export const answersConfirmation = (data: CallbackData | undefined): boolean =>
  data !== undefined && byTag.get(data._tag)?.confirms !== undefined

/** Whether a press carries out a confirmed write (it is not counted against the admission limit). */
export const carriesOutWrite = (data: CallbackData | undefined): boolean =>
  data !== undefined && byTag.get(data._tag)?.confirms?.(data) === true

const writeByCode = new Map<string, WriteKind>()
const codeOfWrite = new Map<string, string>()

/** Adds kinds of confirmed write; a kind or code registered twice is a mistake in the bot and stops it at start-up. */
export const registerWrites = (writes: ReadonlyArray<WriteCode>): void => {
  for (const { kind, code } of writes) {
    const text = String(code)
    if (codeOfWrite.has(kind) || writeByCode.has(text) || !/^\d$/.test(text)) {
      throw new Error(`write ${kind} (${text}): its kind or code is taken or malformed`)
    }
    writeByCode.set(text, kind)
    codeOfWrite.set(kind, text)
  }
}

/** Every registered kind of write, by its code. */
export const writeKinds = (): ReadonlyMap<string, WriteKind> => writeByCode

const writeCodeOf = (kind: WriteKind): string => {
  const found = codeOfWrite.get(kind)
  if (found === undefined) throw new Error(`write ${kind} is not registered`)
  return found
}

// ── the pieces codecs are made of ───────────────────────────────────────────────────────────────────────────────────

/** A count or time in base 36. */
export const num = (value: number): string => value.toString(36)
export const optNum = (value: number | undefined): string => (value === undefined ? "" : num(value))

const NUMBER = /^[0-9a-z]{1,11}$/

/** A base-36 count or time; undefined if malformed (the caller then refuses the whole value). */
export const readNum = (text: string | undefined): number | undefined => {
  if (text === undefined || !NUMBER.test(text)) return undefined
  const value = parseInt(text, 36)
  return Number.isSafeInteger(value) ? value : undefined
}

/** The latest time a `Date` can hold (epoch ms); a later one would throw when formatted. */
const MAX_TIME = 8.64e15

/** An optional time: `null` when malformed or beyond `Date`'s range, `undefined` when empty. */
export const readOptTime = (text: string | undefined): number | undefined | null => {
  if (text === "") return undefined
  const value = readNum(text)
  return value === undefined || value > MAX_TIME ? null : value
}

/** One of a closed list, by its index; undefined when not one of them. */
export const readChoice = <A>(choices: ReadonlyArray<A>, text: string | undefined): A | undefined =>
  text !== undefined && /^\d{1,2}$/.test(text) ? choices[Number(text)] : undefined

/** The short random ids the bot draws for what its buttons point to (a confirmation, an alert). */
export const SHORT_ID = /^[0-9a-z]{4,16}$/

/** An exchange order id: digits only. */
const ORDER_ID = /^\d{1,24}$/

/** Nothing carried (`Positions`, `Help`). */
export const noFields: Fields<Record<never, never>> = {
  write: () => [],
  read: (fields) => (fields.length === 0 ? {} : undefined)
}

/** A short id the bot drew (a confirmation, an alert). */
export const idFields: Fields<{ readonly id: string }> = {
  write: ({ id }) => [id],
  read: (fields) => {
    const [id = ""] = fields
    return fields.length === 1 && SHORT_ID.test(id) ? { id } : undefined
  }
}

/** A lone plain symbol. */
export const symbolFields: Fields<{ readonly symbol: string }> = {
  write: ({ symbol }) => [symbol],
  read: (fields) => {
    const [symbol = ""] = fields
    return fields.length === 1 && isPlainSymbol(symbol) ? { symbol } : undefined
  }
}

/** A page and an optional plain symbol, as list buttons carry them. */
export const listFields: Fields<{ readonly page: number; readonly symbol: string | undefined }> = {
  write: ({ page, symbol }) => [num(page), symbol ?? ""],
  read: (fields) => {
    const [page, symbol = ""] = fields
    const pageNumber = readNum(page)
    if (fields.length !== 2 || pageNumber === undefined || (symbol !== "" && !isPlainSymbol(symbol))) return undefined
    return { page: pageNumber, symbol: symbol === "" ? undefined : symbol }
  }
}

/** An exchange order id and its plain symbol. */
export const orderFields: Fields<{ readonly orderId: string; readonly symbol: string }> = {
  write: ({ orderId, symbol }) => [orderId, symbol],
  read: (fields) => {
    const [orderId = "", symbol = ""] = fields
    return fields.length === 2 && ORDER_ID.test(orderId) && isPlainSymbol(symbol) ? { orderId, symbol } : undefined
  }
}

register([
  codec("Write", "w", "trade", {
    write: ({ feature, id, go }) => [writeCodeOf(feature), id, go ? "1" : "0"],
    read: (fields) => {
      const [code = "", id = "", go = ""] = fields
      const feature = writeByCode.get(code)
      if (fields.length !== 3 || feature === undefined || !SHORT_ID.test(id) || (go !== "1" && go !== "0")) return undefined
      return { feature, id, go: go === "1" }
    }
  }, ({ go }) => go)
])
