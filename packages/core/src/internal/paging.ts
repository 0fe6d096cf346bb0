/**
 * The two walks of the exchange's paged reads, written once: a time range asked window by window, a window split
 * where its answer is full; and pages followed by number or cursor until a short page or one with nothing new. Both
 * give each item once by id, for windows and pages that overlap give an item twice.
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { InputError, UnsupportedOperationError } from "../Errors.js"
import type { ApiVersion, EndpointName, TradeDeskError } from "../Errors.js"
import { TimeInput, toMillis } from "../Params.js"

/** A time range walked by a stream, oldest part first. */
export interface TimeRange {
  readonly startTime: TimeInput
  readonly endTime: TimeInput
  /**
   * width of the first windows asked for (default one day, at most the widest window every API version takes); a
   * window the exchange says holds more is split in two
   */
  readonly windowMillis?: number
}

/** A filter that lets the first item of each id through; a walk makes one for itself, it remembers what it let by. */
const firstOfEachId = <A>(idOf: (item: A) => string) => {
  const seen = new Set<string>()
  return (item: A): boolean => {
    const id = idOf(item)
    if (seen.has(id)) return false
    seen.add(id)
    return true
  }
}

/** One window's answer: its items, and whether the exchange holds more in it than it gave. */
export interface Window<A> {
  readonly items: ReadonlyArray<A>
  readonly more: boolean
}

/** Something created at a time: what a windowed read lists. */
interface Created {
  readonly createdAt: DateTime.Utc
}

/** A stream over windows of one read, declared beside the service that offers it. */
export interface WindowedStream<A extends Created> {
  /** the stream's name for its errors, e.g. `Orders.fillsInRange` */
  readonly name: string
  readonly endpoint: EndpointName
  /** the widest window the endpoint takes on every API version, where it has a limit */
  readonly widest?: number
  readonly idOf: (item: A) => string
}

const DAY = 86_400_000

/**
 * The items of a time range, window by window, each window's items oldest first by their creation time (the
 * exchange answers newest first). Windows share their boundary millisecond, so an item there is found whether the
 * exchange's end is inclusive or not, and given once; a window the exchange says holds more is split in two and asked
 * again, down to one millisecond. No API version has a cursor within one: a millisecond that still holds more ends the stream with
 * an UnsupportedOperationError after its items, rather than leave the rest out unsaid.
 */
export const windows = <A extends Created>(
  stream: WindowedStream<A>,
  apiVersion: ApiVersion,
  range: TimeRange,
  /** the window from `from` to `to` (epoch milliseconds, both asked for) */
  fetch: (from: number, to: number) => Effect.Effect<Window<A>, TradeDeskError>
): Stream.Stream<A, TradeDeskError> => {
  const { endpoint } = stream
  const bounds = Schema.decodeUnknownEither(Schema.Tuple(TimeInput, TimeInput))([range?.startTime, range?.endTime])
  if (Either.isLeft(bounds)) {
    return Stream.fail(new InputError({ endpoint, field: "range", reason: "startTime and endTime must be times (epoch milliseconds, a Date or a DateTime)" }))
  }
  const start = toMillis(bounds.right[0])
  const end = toMillis(bounds.right[1])
  if (start > end) return Stream.fail(new InputError({ endpoint, field: "range", reason: "startTime must not be after endTime" }))
  const width = Math.min(stream.widest ?? Infinity, Math.max(2, Math.floor(Number(range.windowMillis) || DAY)))
  const oldestFirst = (items: ReadonlyArray<A>) =>
    [...items].sort((a, b) => DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt))
  const windowItems = (from: number, to: number): Stream.Stream<A, TradeDeskError> =>
    Stream.unwrap(Effect.map(fetch(from, to), ({ items, more }) => {
      if (!more) return Stream.fromIterable(oldestFirst(items))
      if (to === from) {
        return Stream.concat(
          Stream.fromIterable(oldestFirst(items)),
          Stream.fail(new UnsupportedOperationError({
            endpoint,
            apiVersion,
            reason: `${stream.name} cannot page within one millisecond, and the exchange holds more than the ${items.length} items it gave at ` +
              `${new Date(from).toISOString()} (${from}): the stream may be incomplete`
          }))
        )
      }
      // halves share their boundary, so a window of two milliseconds is asked one millisecond at a time
      const middle = from + Math.floor((to - from) / 2)
      const [first, second] = to - from === 1 ? [[from, from], [to, to]] as const : [[from, middle], [middle, to]] as const
      return Stream.concat(windowItems(...first), windowItems(...second))
    }))
  const all = Stream.iterate(start, (from) => from + width).pipe(
    Stream.takeUntil((from) => from + width >= end),
    Stream.flatMap((from) => windowItems(from, Math.min(end, from + width)))
  )
  return Stream.suspend(() => Stream.filter(all, firstOfEachId(stream.idOf)))
}

/** One page's answer: its items, and whether it is the last (a short page, or the last the exchange counts). */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly last: boolean
}

export interface PageWalk<C, A, E> {
  /** where the first page is asked from: a page number or a cursor */
  readonly first: C
  readonly fetch: (cursor: C) => Effect.Effect<Page<A>, E>
  readonly idOf: (item: A) => string
  /** where the page after one that is not the last is asked from, given its items and those of them not given before */
  readonly next: (cursor: C, items: ReadonlyArray<A>, fresh: ReadonlyArray<A>) => C
  /**
   * A page that brings nothing new ends the walk: an exchange that ignores the page or cursor would answer it forever.
   * A walk whose `next` steps past such a page (to older times) says `stepsPastStale`.
   */
  readonly stepsPastStale?: boolean
}

/**
 * Every item of the pages from `walk.first` on, each once, page after page until the last; a page is fetched only
 * when the one before is used up.
 */
export const pages = <C, A, E>(walk: PageWalk<C, A, E>): Stream.Stream<A, E> =>
  Stream.suspend(() => {
    const isFresh = firstOfEachId(walk.idOf)
    return Stream.paginateEffect(walk.first, (cursor) =>
      Effect.map(walk.fetch(cursor), ({ items, last }) => {
        const fresh = items.filter(isFresh)
        const ends = last || (fresh.length === 0 && !walk.stepsPastStale)
        return [fresh, ends ? Option.none<C>() : Option.some(walk.next(cursor, items, fresh))] as const
      })).pipe(Stream.flattenIterables)
  })
