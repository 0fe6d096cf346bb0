/**
 * The demo accounts every simulator knows: fixed, so docs, the CLI banner and tests can name them. Frozen: every
 * simulator in the process hands out these same objects.
 */
import type { DemoAccount } from "./types.js"

export const trader: DemoAccount = Object.freeze({
  apiKey: "tdsim-trader-key-4f1c2a9e",
  apiSecret: "tdsim-trader-secret-7d2b5c81e6a94f03",
  apiPassphrase: "trader-passphrase",
  uid: "8800000001",
  agent: false
})

/** Also trades and has plan orders and bills, so one key can demo every command. */
export const agent: DemoAccount = Object.freeze({
  apiKey: "tdsim-agent-key-9b3e6d10",
  apiSecret: "tdsim-agent-secret-2c8f4a71d05e9b36",
  apiPassphrase: "agent-passphrase",
  uid: "8800000002",
  agent: true
})

export const all: ReadonlyArray<DemoAccount> = Object.freeze([trader, agent])
