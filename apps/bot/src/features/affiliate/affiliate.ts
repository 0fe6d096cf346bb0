/** `/affiliate`: totals and a paged table of invited users, or all of them as a CSV file. */
import { Effect, Option } from "effect"
import { Composer } from "telegraf"
import { refusedOnDemo } from "../../kernel/exchange/demo.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { run, sendFile, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { AffiliateBook, MAX_USERS } from "./AffiliateBook.js"
import type { Query } from "./AffiliateBook.js"
import { affiliateCaption, affiliateCsv, affiliateFileName, affiliateView } from "./format.js"
import { parseAffiliate } from "./parse.js"

const users = (query: Query) => Effect.flatMap(AffiliateBook, (book) => book.users(query))

export const affiliate = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()

  const showPage = async (ctx: BotContext, query: Query, page: number) => {
    const list = await run(ctx, deps, users(query))
    if (Option.isSome(list)) await show(ctx, affiliateView(list.value, query, page, MAX_USERS))
  }

  composer.use(onCommand(deps, "affiliate", async (ctx) =>
    (await refusedOnDemo(ctx, deps, "affiliate statistics")) ? undefined : withArgs(ctx, "affiliate", parseAffiliate(ctx.payload, deps.now()), async ({ csv, ...query }) => {
      if (!csv) return showPage(ctx, query, 0)
      const list = await run(ctx, deps, users(query))
      if (Option.isNone(list)) return
      ctx.note("csv", `${list.value.length} users`)
      await sendFile(ctx, affiliateFileName(query, deps.now()), affiliateCsv(list.value), affiliateCaption(list.value.length, MAX_USERS))
    })))
  composer.use(onButton("Affiliate", (ctx, { page, ...query }) => showPage(ctx, query, page)))
  return composer
}
