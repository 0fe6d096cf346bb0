/** `/bills`: the spot ledger, a page at a time walking back with `before`, or the whole selection as a CSV file. */
import { SpotBills } from "@tradedesk/core"
import type { SpotBill } from "@tradedesk/core"
import { Chunk, Effect, Option, Stream } from "effect"
import { Composer } from "telegraf"
import { refusedOnDemo } from "../../kernel/exchange/demo.js"
import { ExportGate } from "../../kernel/exchange/ExportGate.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { run, send, sendFile, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { CoinDirectory } from "./CoinDirectory.js"
import { beforeBound, billsCaption, billTypesView, billsCsv, billsFileName, billsView, BILLS_FETCH_LIMIT, pageOf, unknownCoinView } from "./format.js"
import type { BillsQuery } from "./format.js"
import { asksForTypes, parseBills } from "./parse.js"
import type { BillsArgs } from "./parse.js"

/**
 * Rows in one CSV export at most: about 40 pages of weight 5, well under the default budget of 500 per window; a
 * narrower `since` gets older ones.
 */
const MAX_CSV_BILLS = 4_000

const page = (query: BillsQuery) =>
  Effect.gen(function*() {
    const bills = yield* SpotBills.SpotBills
    const coins = yield* CoinDirectory
    const fetched = yield* bills.list({
      coinId: query.coinId,
      bizType: query.bizType,
      after: query.after,
      before: beforeBound(query),
      limit: BILLS_FETCH_LIMIT
    })
    yield* coins.learn(fetched)
    const coin = query.coinId === undefined ? Option.none() : yield* coins.nameOf(query.coinId)
    return { page: pageOf(fetched, query), coin: Option.getOrUndefined(coin) }
  })

/** The newest bills of the selection, through the export gate; no page beyond the cap is asked for. */
export const exportBills = (query: BillsQuery) =>
  Effect.gen(function*() {
    const bills = yield* SpotBills.SpotBills
    const gate = yield* ExportGate
    return yield* bills.walkBack({ coinId: query.coinId, bizType: query.bizType, after: query.after, limit: BILLS_FETCH_LIMIT }).pipe(
      Stream.take(MAX_CSV_BILLS),
      Stream.runCollect,
      // named: the record's type is core's published one, not a path into its build
      Effect.map((chunk): ReadonlyArray<SpotBill.SpotBill> => Chunk.toReadonlyArray(chunk)),
      gate.exclusive
    )
  })

export const bills = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()

  const showPage = async (ctx: BotContext, query: BillsQuery) => {
    const result = await run(ctx, deps, page(query))
    if (Option.isSome(result)) await show(ctx, billsView(result.value.page, query, result.value.coin))
  }

  const handle = async (ctx: BotContext, args: BillsArgs) => {
    let coinId: number | undefined
    if (args.coin?._tag === "id") coinId = args.coin.id
    if (args.coin?._tag === "name") {
      const name = args.coin.name
      const found = await run(ctx, deps, Effect.flatMap(CoinDirectory, (coins) => Effect.zip(coins.idOf(name), coins.known)))
      if (Option.isNone(found)) return
      const [id, known] = found.value
      if (Option.isNone(id)) {
        ctx.note("unknown_coin", name)
        return send(ctx, unknownCoinView(name, known))
      }
      coinId = id.value
    }
    const query: BillsQuery = { coinId, bizType: args.bizType, after: args.after, before: undefined, skip: 0 }
    if (!args.csv) return showPage(ctx, query)
    const all = await run(ctx, deps, exportBills(query))
    if (Option.isNone(all)) return
    ctx.note("csv", `${all.value.length} bills`)
    await sendFile(ctx, billsFileName(args, deps.now()), billsCsv(all.value), billsCaption(all.value.length, MAX_CSV_BILLS))
  }

  composer.use(onCommand(deps, "bills", async (ctx) =>
    (await refusedOnDemo(ctx, deps, "ledger (bills)"))
      ? undefined
      : asksForTypes(ctx.payload) ? send(ctx, billTypesView()) : withArgs(ctx, "bills", parseBills(ctx.payload, deps.now()), (args) => handle(ctx, args))))
  composer.use(onButton("Bills", (ctx, data) => showPage(ctx, data)))
  return composer
}
