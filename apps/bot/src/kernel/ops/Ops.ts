/**
 * The operator's endpoints of one bot process, for load balancers and Prometheus: `GET /healthz` (the process runs
 * its loop: 200), `GET /readyz` (200 when it should be sent updates, else 503 with a short plain-text reason; 503 from
 * the moment it drains) and `GET /metrics` (Prometheus text). Served on the webhook server and, when
 * `BOT_OPS_PORT` is set, on a server of their own (`startOpsServer`: long polling has no server otherwise).
 */
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Logger } from "./log.js"
import type { MetricsService } from "./Metrics.js"
import type { Readiness } from "./Readiness.js"

const PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"])

/** Whether the path is one of the operator's endpoints. */
export const isOpsPath = (path: string): boolean => PATHS.has(path)

const plain = (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text), "cache-control": "no-store", ...headers })
  res.end(text)
}

export class Ops {
  private drainingNow = false

  /** Without `readiness` the process is ready until it drains; without `metrics`, `/metrics` is not served. */
  constructor(private readonly options: { readonly readiness?: Readiness; readonly metrics?: MetricsService } = {}) {}

  get metrics(): MetricsService | undefined {
    return this.options.metrics
  }

  /** From now on: not ready, and a webhook refuses new updates (503) so Telegram delivers them to another replica. */
  drain(): void {
    this.drainingNow = true
  }

  get draining(): boolean {
    return this.drainingNow
  }

  /** Answers a request for one of `isOpsPath`'s paths. */
  async answer(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD") return plain(res, 405, "", { allow: "GET, HEAD", connection: "close" })
    if (path === "/healthz") return plain(res, 200, "ok")
    if (path === "/readyz") {
      if (this.drainingNow) return plain(res, 503, "draining")
      const reason = await this.options.readiness?.()
      return reason === undefined ? plain(res, 200, "ready") : plain(res, 503, reason)
    }
    const metrics = this.options.metrics
    if (metrics === undefined) return plain(res, 404, "")
    const text = await metrics.text()
    res.writeHead(200, { "content-type": metrics.contentType, "content-length": Buffer.byteLength(text), "cache-control": "no-store" })
    res.end(text)
  }
}

export interface RunningOps {
  readonly port: number
  readonly close: () => Promise<void>
}

/** A server of the operator's endpoints only (`BOT_OPS_PORT`, on `BOT_OPS_HOST`): 404 elsewhere; small, bounded requests. */
export const startOpsServer = async (ops: Ops, host: string, port: number, logger: Logger): Promise<RunningOps> => {
  const server = createServer({ maxHeaderSize: 8 * 1024, headersTimeout: 5_000, requestTimeout: 10_000 }, (req, res) => {
    // a probe sends no body: whatever comes is not read, and the connection closes after a refusal
    const path = (req.url ?? "").split("?")[0] ?? ""
    if (!isOpsPath(path)) return plain(res, 404, "", { connection: "close" })
    ops.answer(path, req, res).catch((error: unknown) => {
      logger.log("error", "ops_server", { detail: error instanceof Error ? error.message : String(error) })
      if (!res.headersSent) plain(res, 500, "", { connection: "close" })
      else res.destroy()
    })
  })
  server.keepAliveTimeout = 5_000
  server.maxConnections = 64
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      server.on("error", (error) => logger.log("error", "ops_server", { detail: error.message }))
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  logger.log("info", "ops_listening", { host: address.address, port: address.port })
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
