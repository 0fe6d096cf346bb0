/**
 * The type of a record's schema under the record's own name: `export type Ticker = RecordType<typeof Ticker>` for
 * `Schema.Schema.Type<typeof Ticker>`, the same fields with their docs and `readonly` and `?` marks.
 *
 * `Schema.Schema.Type<…>` resolves to Effect's struct type, which has no name of its own, so a type the compiler infers
 * from the record (the operation list's, the endpoints', the facade's methods derived from them) is spelled out field
 * by field in the published `.d.ts`, without the fields' docs, and an editor's hover on a field of `client.ticker()`'s
 * answer shows none. A mapped type over the schema's type is a type of the alias's own: the declarations refer to it
 * by name and keep the docs. (Mapped over a type parameter, `{ [K in keyof T]: T[K] }`, it would keep the helper's name
 * instead, and the declarations would still spell the fields out.)
 */
import type * as Schema from "effect/Schema"

export type RecordType<S extends Schema.Schema.Any> = { [K in keyof Schema.Schema.Type<S>]: Schema.Schema.Type<S>[K] }
