/** Answers are read up to `maxResponseBytes`: a larger one is never buffered whole, and fails as a DecodeError. */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Effect, Either, Layer } from "effect"
import { createServer } from "node:http"
import type { ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import * as RateLimit from "../src/RateLimit.js"
import { Tickers } from "../src/market/Tickers.js"
import * as TradeDesk from "../src/TradeDesk.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"

const MiB = 1024 * 1024

/** A server whose one route answers through `answer`; closed after the test. */
const withServer = async <A>(answer: (res: ServerResponse) => void, test: (url: string) => Promise<A>): Promise<A> => {
  const server = createServer((_, res) => answer(res))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    return await test(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

/** Waits, polling with a bound, until the condition holds. */
const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
}

const tickers = (options: TradeDeskConfig.Options) =>
  Effect.runPromise(Effect.either(Effect.provide(Effect.flatMap(Tickers, (s) => s.all()), TradeDesk.layer({ readRetries: 0, ...options }))))

describe("the undici client", () => {
  it("stops reading an answer over the cap and aborts it, without a Content-Length", async () => {
    // an answer of up to 256 MiB, written as fast as the client reads it
    const chunk = Buffer.alloc(64 * 1024, "x")
    let written = 0
    let closed = false
    const result = await withServer((res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.on("close", () => {
        closed = true
      })
      const pump = () => {
        while (!closed && written < 256 * MiB) {
          written += chunk.length
          if (!res.write(chunk)) return void res.once("drain", pump)
        }
        res.end()
      }
      pump()
    }, (url) => tickers({ futuresBaseUrl: url, maxResponseBytes: MiB, timeoutMs: 30_000 }))
    expect(Either.getLeft(result)).toMatchObject({ _tag: "Some", value: { _tag: "DecodeError", endpoint: "tickers", detail: "the answer exceeded 1048576 bytes" } })
    await until(() => closed)
    expect(closed).toBe(true)
    // what the sockets' buffers held when reading stopped, not the whole answer
    expect(written).toBeLessThan(32 * MiB)
  })

  it("refuses an answer whose Content-Length is over the cap before reading it", async () => {
    let closed = false
    const result = await withServer((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(100 * MiB) })
      res.write("[")
      res.on("close", () => {
        closed = true
      })
    }, (url) => tickers({ futuresBaseUrl: url, maxResponseBytes: MiB, timeoutMs: 20_000 }))
    expect(Either.getLeft(result)).toMatchObject({ _tag: "Some", value: { _tag: "DecodeError", detail: "the answer exceeded 1048576 bytes" } })
    // the body never ends, so the cap's error (not the timeout's) shows it was not waited for
    await until(() => closed)
    expect(closed).toBe(true)
  })

  it("reads an answer of exactly the cap", async () => {
    const body = `[]${" ".repeat(998)}`
    const result = await withServer((res) => res.end(body), (url) => tickers({ futuresBaseUrl: url, maxResponseBytes: 1000 }))
    expect(result).toEqual(Either.right([]))
  })
})

describe("any other HttpClient", () => {
  /** The services over a client that answers `body` (with `headers`), counting how often a body is read. */
  const viaClient = (body: string, headers: Record<string, string>, maxResponseBytes: number) => {
    let reads = 0
    const client = HttpClient.make((request) =>
      Effect.sync(() => {
        const response = HttpClientResponse.fromWeb(request, new Response(body, { headers }))
        return Object.create(response, {
          text: {
            get: () => {
              reads++
              return response.text
            }
          }
        }) as HttpClientResponse.HttpClientResponse
      })
    )
    const layer = TradeDesk.layerWith.pipe(
      Layer.provide(Layer.mergeAll(RateLimit.layer, Layer.succeed(HttpClient.HttpClient, client))),
      Layer.provide(TradeDeskConfig.layer({ maxResponseBytes, readRetries: 0 }))
    )
    return Effect.runPromise(Effect.either(Effect.provide(Effect.flatMap(Tickers, (s) => s.all()), layer))).then((result) => ({ result, reads }))
  }

  it("has the cap checked by the transport: by Content-Length before reading, by size after", async () => {
    const big = `[${"\"x\",".repeat(600)}"x"]`
    const declared = await viaClient(big, { "content-length": String(big.length) }, 1000)
    expect(Either.getLeft(declared.result)).toMatchObject({ _tag: "Some", value: { _tag: "DecodeError", detail: "the answer exceeded 1000 bytes" } })
    expect(declared.reads).toBe(0)
    const undeclared = await viaClient(big, {}, 1000)
    expect(Either.getLeft(undeclared.result)).toMatchObject({ _tag: "Some", value: { _tag: "DecodeError", detail: "the answer exceeded 1000 bytes" } })
    // counted in bytes, not characters: 400 three-byte characters are 1,200 bytes
    const wide = await viaClient(`["${"€".repeat(400)}"]`, {}, 1000)
    expect(Either.getLeft(wide.result)).toMatchObject({ _tag: "Some", value: { _tag: "DecodeError", detail: "the answer exceeded 1000 bytes" } })
    expect((await viaClient("[]", {}, 1000)).result).toEqual(Either.right([]))
  })
})

describe("maxDecimalLength", () => {
  const ticker = (last: string) =>
    JSON.stringify([{
      symbol: "cmt_btcusdt",
      best_ask: "1",
      best_bid: "1",
      high_24h: "1",
      last,
      low_24h: "1",
      timestamp: "1716710918113",
      volume_24h: "1",
      priceChangePercent: "0",
      base_volume: "1"
    }])
  const answer = (text: string) => (res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end(text)

  it("refuses a decimal longer than the setting, naming the limit, and reads one within it", async () => {
    const long = `1${"0".repeat(20)}`
    const refused = await withServer(answer(ticker(long)), (url) => tickers({ futuresBaseUrl: url, maxDecimalLength: 20 }))
    expect(Either.isLeft(refused) && refused.left._tag).toBe("DecodeError")
    expect(Either.isLeft(refused) && refused.left.message).toMatch(/21 characters.*20/)
    const read = await withServer(answer(ticker(long)), (url) => tickers({ futuresBaseUrl: url, maxDecimalLength: 21 }))
    expect(Either.isRight(read)).toBe(true)
  })
})
