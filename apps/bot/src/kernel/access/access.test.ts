import { describe, expect, it } from "vitest"
import { allows, decide, mayBeTold, roleOf } from "./access.js"

const policy = { readers: new Set([2]), traders: new Set([3]), publicMarket: false }

describe("the access policy", () => {
  it("ranks roles for each kind of command", () => {
    const table = [1, 2, 3].map((user) => (["open", "market", "account", "trade"] as const).map((access) => allows(policy, access, user)))
    expect(table).toEqual([[true, false, false, false], [true, true, true, false], [true, true, true, true]])
    expect(allows({ ...policy, publicMarket: true }, "market", 1)).toBe(true)
    expect(allows({ ...policy, publicMarket: true }, "account", 1)).toBe(false)
  })

  it("tells pushes only to owners who may read the account, as the policy is at that moment", () => {
    const live = { readers: new Set([2]), traders: new Set([3]), publicMarket: true }
    expect([1, 2, 3].map((owner) => mayBeTold(live, owner))).toEqual([false, true, true])
    live.readers.delete(2)
    expect(roleOf(live, 2)).toBe("market")
    expect(mayBeTold(live, 2)).toBe(false)
  })

  it("refuses for the role first, then for the chat", () => {
    expect(decide(policy, "trade", 2, "private")).toBe("traders_only")
    expect(decide(policy, "trade", 2, "group")).toBe("traders_only")
    expect(decide(policy, "trade", 1, "private")).toBe("not_allowed")
    expect(decide(policy, "account", 3, "group")).toBe("private_only")
    expect(decide(policy, "open", 1, "group")).toBeUndefined()
    expect(decide(policy, "open", undefined, "private")).toBe("not_allowed")
  })
})
