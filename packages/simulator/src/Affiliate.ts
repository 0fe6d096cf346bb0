/**
 * The users an agent account invited, each with seeded daily figures (USDT cents) since the day they joined. A query
 * sums each user's days that overlap the time window and pages the users in uid order.
 */
import type { AffiliateUserStats } from "@tradedesk/core"
import { Prng } from "./Prng.js"
import { decimal } from "./units.js"

interface Day {
  /** start of the UTC day, ms */
  readonly start: number
  readonly deposit: number
  readonly withdrawal: number
  readonly spot: number
  readonly futures: number
  readonly commission: number
}

interface Invitee {
  readonly uid: string
  readonly joinedAt: number
  readonly days: ReadonlyArray<Day>
}

export interface StatsFilter {
  readonly uid?: string
  readonly startTime?: number
  readonly endTime?: number
  readonly page: number
  readonly pageSize: number
}

const DAY = 86_400_000
const INVITEES = 137
const ACTIVE_DAY_CHANCE = 0.25

const invitees = (prng: Prng, now: number): ReadonlyArray<Invitee> => {
  const today = Math.floor(now / DAY) * DAY
  const uids = new Set<string>()
  while (uids.size < INVITEES) uids.add(String(8_100_000_000 + prng.int(0, 99_999_999)))
  return [...uids].sort().map((uid) => {
    const joinedAt = now - prng.int(1, 365) * DAY - prng.int(0, DAY - 1)
    const days: Array<Day> = []
    for (let start = Math.floor(joinedAt / DAY) * DAY; start <= today; start += DAY) {
      if (!prng.chance(ACTIVE_DAY_CHANCE)) continue
      const spot = prng.chance(0.6) ? prng.int(0, 5_000_000) : 0
      const futures = prng.chance(0.7) ? prng.int(0, 50_000_000) : 0
      days.push({
        start,
        deposit: prng.chance(0.2) ? prng.int(10_000, 2_000_000) : 0,
        withdrawal: prng.chance(0.1) ? prng.int(5_000, 1_000_000) : 0,
        spot,
        futures,
        // 0.05 % of spot and 0.02 % of futures volume
        commission: Math.floor((spot * 5 + futures * 2) / 10_000)
      })
    }
    return { uid, joinedAt, days }
  })
}

export class Affiliate {
  private readonly books = new Map<string, ReadonlyArray<Invitee>>()

  /** Seeds the invited users of an agent account. */
  open(agentUid: string, seed: number, now: number): void {
    this.books.set(agentUid, invitees(Prng.derive(seed, `affiliate/${agentUid}`), now))
  }

  page(agentUid: string, filter: StatsFilter): AffiliateUserStats.AffiliatePage {
    const start = filter.startTime ?? 0
    const end = filter.endTime ?? Number.MAX_SAFE_INTEGER
    const users = (this.books.get(agentUid) ?? []).filter((user) =>
      (filter.uid === undefined || user.uid === filter.uid) && user.joinedAt <= end
    )
    const from = (filter.page - 1) * filter.pageSize
    const records = users.slice(from, from + filter.pageSize).map((user): AffiliateUserStats.AffiliateUserStats => {
      let deposit = 0
      let withdrawal = 0
      let spot = 0
      let futures = 0
      let commission = 0
      for (const day of user.days) {
        if (day.start + DAY <= start || day.start > end) continue
        deposit += day.deposit
        withdrawal += day.withdrawal
        spot += day.spot
        futures += day.futures
        commission += day.commission
      }
      return {
        uid: user.uid,
        depositAmount: decimal(deposit, 2),
        withdrawalAmount: decimal(withdrawal, 2),
        spotTradingAmount: decimal(spot, 2),
        futuresTradingAmount: decimal(futures, 2),
        commission: decimal(commission, 2)
      }
    })
    return { pages: Math.ceil(users.length / filter.pageSize), pageSize: filter.pageSize, total: users.length, records }
  }
}
