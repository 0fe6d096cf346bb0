/**
 * One bot process per data folder. The process that writes the folder holds `bot.lock` in it, made exclusively and
 * naming its holder (`{"pid","hostname","startedAt"}`); another process refuses to start rather than overwrite the
 * holder's files and sweep its temporary files.
 *
 * A lock is stale, and taken over, when its holder is on this host and its pid no longer runs, or when the file was
 * left incomplete (a crash between making and writing it) more than a few seconds ago. A holder on another host
 * cannot be checked: it is refused like a live one.
 *
 * Files have no compare-and-delete: a starter that judged a lock stale could remove the lock another starter has just
 * made in its place. So one starter at a time takes a stale lock over, the one that makes `bot.lock.takeover` (itself
 * stale, and taken over, by the same rule), and it checks again, holding that claim, that the lock is still the file it
 * judged before moving it aside.
 */
import { Either, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { constants } from "node:fs"
import { link, mkdir, open, rename, rm } from "node:fs/promises"
import { hostname } from "node:os"
import { join } from "node:path"
import { PRIVATE_DIR, PRIVATE_FILE, syncFolder } from "./privateFiles.js"

export const LOCK_FILE = "bot.lock"
const CLAIM_FILE = `${LOCK_FILE}.takeover`
/** a lock file is a few dozen bytes: a longer one is not the bot's, and is not read whole */
const MAX_READ = 4096
/** past this age, nobody is still writing an incomplete lock file */
const INCOMPLETE_GRACE_MS = 5_000
/** a takeover takes three tries (the stale claim, the stale lock, the new lock); one more for a lock released meanwhile */
const ATTEMPTS = 4

const Holder = Schema.Struct({
  pid: Schema.Int.pipe(Schema.between(1, 2 ** 31 - 1)),
  // the file is read into a start-up message: no control characters
  hostname: Schema.String.pipe(Schema.pattern(/^[^\p{Cc}]{1,255}$/u)),
  startedAt: Schema.Date
})
const decodeHolder = Schema.decodeUnknownEither(Schema.parseJson(Holder))

/** Another process holds the data folder. */
export class FolderLockedError extends Schema.TaggedError<FolderLockedError>()("FolderLockedError", {
  directory: Schema.String,
  /** the file that names the holder */
  lockFile: Schema.String,
  /** who holds the folder, as far as that file tells */
  holder: Schema.String
}) {
  override get message(): string {
    return `${this.directory} is in use by another bot process (${this.holder}): stop that process, or set BOT_DATA_DIR to another folder; if you are sure it is gone, delete ${this.lockFile}`
  }
}

/** What is at a lock file's path, read without trusting it. */
type Found =
  | { readonly kind: "other" }
  | {
    readonly kind: "file"
    /** a takeover moves the file it judged, not one made since under the same name */
    readonly identity: string
    /** none when longer than `MAX_READ` */
    readonly text: string | undefined
    readonly ageMs: number
  }

const hasCode = (error: unknown, code: string) => error instanceof Error && "code" in error && error.code === code

// not following a link, and not waiting on a pipe that has no writer
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/** The file at `path`; none when there is none. */
const inspect = async (path: string): Promise<Found | undefined> => {
  let file
  try {
    file = await open(path, READ_FLAGS)
  } catch (error) {
    if (hasCode(error, "ENOENT")) return undefined
    if (hasCode(error, "ELOOP")) return { kind: "other" }
    throw error
  }
  try {
    const stats = await file.stat()
    if (!stats.isFile()) return { kind: "other" }
    const buffer = Buffer.alloc(MAX_READ + 1)
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0)
    return {
      kind: "file",
      identity: `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`,
      text: bytesRead > MAX_READ ? undefined : buffer.toString("utf8", 0, bytesRead),
      ageMs: Date.now() - stats.mtimeMs
    }
  } finally {
    await file.close()
  }
}

const sameFile = (a: Found | undefined, b: Found) =>
  a?.kind === "file" && b.kind === "file" && a.identity === b.identity && a.text === b.text

const holderOf = (found: Found & { kind: "file" }) =>
  found.text === undefined ? undefined : Either.getOrUndefined(decodeHolder(found.text))

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user
    return !hasCode(error, "ESRCH")
  }
}

/** When this process began: a lock naming its pid but older than that is a previous process's (a container's pid 1). */
const PROCESS_STARTED_AT = Date.now() - process.uptime() * 1000

const isStale = (found: Found, host: string): boolean => {
  if (found.kind === "other") return false
  const holder = holderOf(found)
  if (holder === undefined) return found.ageMs > INCOMPLETE_GRACE_MS
  if (holder.hostname !== host) return false
  return holder.pid === process.pid ? holder.startedAt.getTime() < PROCESS_STARTED_AT : !isRunning(holder.pid)
}

const describeHolder = (found: Found | undefined): string => {
  if (found === undefined) return "its lock file kept changing while this one started"
  if (found.kind === "other") return "its lock file is not a file a bot wrote"
  const holder = holderOf(found)
  return holder === undefined
    ? "its lock file is incomplete: a bot starting right now, or one that crashed"
    : `pid ${holder.pid} on host ${holder.hostname} since ${holder.startedAt.toISOString()}`
}

/** Makes the file holding `content`, flushed; false when there is one already. */
const create = async (path: string, content: string): Promise<boolean> => {
  let file
  try {
    file = await open(path, "wx", PRIVATE_FILE)
  } catch (error) {
    if (hasCode(error, "EEXIST")) return false
    throw error
  }
  try {
    await file.writeFile(content)
    await file.sync()
  } catch (error) {
    await file.close()
    await rm(path, { force: true })
    throw error
  }
  await file.close()
  return true
}

/**
 * Moves the stale file at `path` aside, adding the name it was moved to to `asides`. Were it another file than the one
 * judged (a second claimant's, after a claim was wrongly judged stale), it is put back: a link, which refuses to
 * replace a file made meanwhile.
 */
const setAside = async (path: string, judged: Found, asides: Array<string>): Promise<void> => {
  const aside = `${path}.${randomBytes(6).toString("hex")}.stale`
  try {
    await rename(path, aside)
  } catch (error) {
    if (hasCode(error, "ENOENT")) return
    throw error
  }
  if (sameFile(await inspect(aside), judged)) {
    asides.push(aside)
    return
  }
  await link(aside, path).catch((error: unknown) => {
    if (!hasCode(error, "EEXIST")) throw error
  })
  await rm(aside, { force: true })
}

/** The data folder, held by this process until `release`. */
export class FolderLock {
  private constructor(
    /** the lock file */
    readonly path: string,
    private readonly content: string
  ) {}

  /**
   * Makes `directory` if need be (0700) and takes its lock, taking over a stale one. Rejects with a
   * `FolderLockedError` naming the holder when another process has it, or with the system's error.
   */
  static async acquire(directory: string): Promise<FolderLock> {
    await mkdir(directory, { recursive: true, mode: PRIVATE_DIR })
    const path = join(directory, LOCK_FILE)
    const claim = join(directory, CLAIM_FILE)
    const host = hostname()
    const content = JSON.stringify({ pid: process.pid, hostname: host, startedAt: new Date().toISOString() })
    const refusal = (file: string, found: Found | undefined) =>
      new FolderLockedError({ directory, lockFile: file, holder: describeHolder(found) })
    // files set aside are removed once the start is decided: while one exists, no new file can get its inode number
    // and, still empty, pass for it
    const asides: Array<string> = []
    try {
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        if (await create(path, content)) {
          await syncFolder(directory)
          return new FolderLock(path, content)
        }
        const found = await inspect(path)
        if (found === undefined) continue
        if (!isStale(found, host)) throw refusal(path, found)
        if (await create(claim, content)) {
          try {
            if (sameFile(await inspect(path), found)) await setAside(path, found, asides)
          } finally {
            await rm(claim, { force: true })
          }
        } else {
          // the claimant takes the folder, unless it is gone
          const claimant = await inspect(claim)
          if (claimant === undefined) continue
          if (!isStale(claimant, host)) throw refusal(claim, claimant)
          await setAside(claim, claimant, asides)
        }
      }
      throw refusal(path, await inspect(path))
    } finally {
      for (const aside of asides) await rm(aside, { force: true })
    }
  }

  /** Removes the lock file if it is still this one's; safe to call more than once. */
  async release(): Promise<void> {
    const found = await inspect(this.path)
    if (found?.kind === "file" && found.text === this.content) await rm(this.path, { force: true })
  }
}
