/**
 * The bot's one connection to Redis (`BOT_REDIS_URL`), shared by what lives there: confirmations and the ledger of
 * updates handled. Every command has a time limit and none waits for a reconnection: a Redis that is down or hangs
 * fails the step that needed it (a Confirm is then refused with "nothing was sent"), it never holds it up.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { Redis } from "ioredis"
import type { Logger } from "../ops/log.js"
import { StoreError } from "../store/Store.js"

export interface RedisSettings {
  readonly host: string
  readonly port: number
  readonly db: number
  readonly username: string | undefined
  readonly password: Redacted.Redacted<string> | undefined
  /** `rediss:` */
  readonly tls: boolean
  /** the bot's keys are `tradedesk:<namespace>:…`: bots sharing one Redis keep apart by it */
  readonly namespace: string
  /** the longest a command may take, connecting included (default `COMMAND_TIMEOUT_MILLIS`) */
  readonly timeoutMs?: number
}

/** Long enough for a loaded Redis across a network, short enough that a trader pressing Confirm is told soon. */
export const COMMAND_TIMEOUT_MILLIS = 2_000

/** Where the settings point, for the log and messages: never the password. */
export const describeTarget = (settings: RedisSettings): string =>
  `${settings.tls ? "rediss" : "redis"}://${settings.host.includes(":") ? `[${settings.host}]` : settings.host}:${settings.port}/${settings.db}`

/** The prefix of every key of the bot's namespace. */
export const prefixOf = (namespace: string): string => `tradedesk:${namespace}:`

/** A connected client over `settings`, its commands bounded in time; fails when it cannot connect within that time. */
export const connect = async (settings: RedisSettings): Promise<Redis> => {
  const timeout = settings.timeoutMs ?? COMMAND_TIMEOUT_MILLIS
  const client = new Redis({
    host: settings.host,
    port: settings.port,
    db: settings.db,
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.password === undefined ? {} : { password: Redacted.value(settings.password) }),
    ...(settings.tls ? { tls: { servername: settings.host } } : {}),
    lazyConnect: true,
    connectTimeout: timeout,
    commandTimeout: timeout,
    // while disconnected a command fails at once rather than queueing until the connection is back
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // reconnects in the background: quickly at first, then every 2 s
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000)
  })
  // errors reach the commands that fail; without a listener ioredis would print each one
  let lastError: unknown
  client.on("error", (error) => (lastError = error))
  try {
    await client.connect()
    return client
  } catch (error) {
    client.disconnect()
    // the connection's own error (refused, timed out) says more than "Connection is closed"
    throw lastError ?? error
  }
}

export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Runs a Redis command as an effect; a failure (down, timed out, refused) is a `StoreError` about `key`. */
export const command = <A>(key: string, run: () => Promise<A>): Effect.Effect<A, StoreError> =>
  Effect.tryPromise({ try: run, catch: (error) => new StoreError({ key, reason: `Redis: ${describeError(error)}` }) })

/** Redis could not be reached when the runtime was built: the start stops with this message. */
export class RedisUnreachable extends Error {}

export class RedisConnection extends Context.Tag("@tradedesk/bot/RedisConnection")<RedisConnection, {
  readonly client: Redis
  readonly namespace: string
}>() {}

/**
 * The connection, made when the runtime is built (a Redis that cannot be reached then stops the start, naming
 * `BOT_REDIS_URL` and where it points) and closed with it.
 */
export const layer = (settings: RedisSettings, log: Logger): Layer.Layer<RedisConnection> =>
  Layer.scoped(
    RedisConnection,
    Effect.acquireRelease(
      Effect.tryPromise({
        try: () => connect(settings),
        catch: (error) => new RedisUnreachable(`BOT_REDIS_URL: cannot connect to Redis at ${describeTarget(settings)} (${describeError(error)})`)
      }).pipe(
        Effect.orDie,
        Effect.tap(() => Effect.sync(() => log.log("info", "redis_connected", { redis: describeTarget(settings), namespace: settings.namespace }))),
        Effect.map((client) => ({ client, namespace: settings.namespace }))
      ),
      ({ client }) => Effect.promise(() => client.quit().then(() => undefined, () => client.disconnect()))
    )
  )
