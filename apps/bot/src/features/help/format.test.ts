import { describe, expect, it } from "vitest"
import { SIMULATOR_LINE } from "../../kernel/ui/messages.js"
import { closestCommand, helpView, startView, unknownCommandView } from "./format.js"

describe("help views", () => {
  it("finds the command a typo meant, and none for what is far from every command", () => {
    expect(closestCommand("ordrs")).toBe("orders")
    expect(closestCommand("tikcers")).toBe("tickers")
    expect(closestCommand("ORDRS")).toBe("orders")
    expect(closestCommand("tickerss")).toBe("tickers")
    expect(closestCommand("bil")).toBe("bills")
    expect(closestCommand("zzzzzz")).toBeUndefined()
    expect(closestCommand("x".repeat(5_000))).toBeUndefined()
    expect(unknownCommandView("ordrs").text.text).toBe("I don't know /ordrs. Did you mean /orders? /help lists what I can do.")
  })

  it("welcomes with a short text and the buttons the role may press", () => {
    const labelsOf = (role: Parameters<typeof startView>[0]) => startView(role, false).buttons.flat().map((button) => button.label)
    expect(labelsOf("trader")).toEqual(["📈 Markets", "📋 Plan orders", "❓ Help"])
    expect(labelsOf("market")).toEqual(["📈 Markets", "❓ Help"])
    expect(labelsOf("none")).toEqual(["❓ Help"])
    // the demo has no plan orders: its positions instead
    expect(startView("trader", "demo").buttons.flat().map((button) => button.label)).toEqual(["📈 Markets", "💼 Positions", "❓ Help"])
    expect(helpView("trader", 5, "demo").text.text).toContain("On the exchange's demo trading: the market commands, /balance, /positions, /alert and /order (without trigger, cross or isolated) work; /orders, /open")
    for (const role of ["trader", "reader", "market", "none"] as const) expect(startView(role, false).text.text).toMatch(/^Welcome to tradedesk\. Here: [a-z]/)
  })

  it("say the simulator when the bot runs on it, and only then, keeping the text's formatting and buttons", () => {
    for (const role of ["trader", "reader", "market", "none"] as const) {
      const plain = startView(role, false)
      const simulated = startView(role, true)
      expect(plain.text.text).not.toContain("Simulator")
      expect(simulated.text.text).toBe(`${plain.text.text}\n\n${SIMULATOR_LINE}`)
      expect(simulated.text.entities).toEqual(plain.text.entities)
      expect(simulated.buttons).toEqual(plain.buttons)
    }
    expect(helpView("trader", 5, true).text.text.endsWith(`\n\n${SIMULATOR_LINE}`)).toBe(true)
    expect(helpView("trader", 5, false).text.text).not.toContain(SIMULATOR_LINE)
  })
})
