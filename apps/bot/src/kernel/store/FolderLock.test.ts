import { spawnSync } from "node:child_process"
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, truncate, utimes, writeFile } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { FolderLock, FolderLockedError, LOCK_FILE } from "./FolderLock.js"

let root: string
let folder: string
let lockFile: string
let claimFile: string
/** a pid that ran on this host and has exited */
let deadPid: number

beforeAll(() => {
  const exited = spawnSync(process.execPath, ["-e", ""])
  if (exited.pid === undefined) throw new Error("no child process could be run")
  deadPid = exited.pid
})

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "tradedesk-lock-"))
  folder = join(root, "data")
  lockFile = join(folder, LOCK_FILE)
  claimFile = join(folder, `${LOCK_FILE}.takeover`)
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const holderFile = (pid: number, host = hostname(), startedAt = "2024-05-01T12:00:00.000Z") =>
  JSON.stringify({ pid, hostname: host, startedAt })

/** a lock file last written a minute ago: past the grace an incomplete one gets */
const age = (path: string) => utimes(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))

const refusal = async (): Promise<FolderLockedError> => {
  const error: unknown = await FolderLock.acquire(folder).then(() => undefined, (error: unknown) => error)
  expect(error).toBeInstanceOf(FolderLockedError)
  return error as FolderLockedError
}

const expectHeldByThisProcess = async () => {
  const held = JSON.parse(await readFile(lockFile, "utf8")) as { pid: number; hostname: string; startedAt: string }
  expect(held).toEqual({ pid: process.pid, hostname: hostname(), startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) })
}

describe("FolderLock", () => {
  it("makes the folder and its lock file, refuses a second holder by name, and is released once", async () => {
    const lock = await FolderLock.acquire(folder)
    expect((await stat(folder)).mode & 0o777).toBe(0o700)
    expect((await stat(lockFile)).mode & 0o777).toBe(0o600)
    await expectHeldByThisProcess()

    const error = await refusal()
    expect(error.message).toMatch(new RegExp(`^${folder} is in use by another bot process \\(pid ${process.pid} on host ${hostname()} since \\d{4}-`))
    expect(error.message).toContain("stop that process, or set BOT_DATA_DIR to another folder")
    expect(error.message).toContain(`if you are sure it is gone, delete ${lockFile}`)

    await lock.release()
    await lock.release()
    expect(await readdir(folder)).toEqual([])
    await (await FolderLock.acquire(folder)).release()
  })

  it("leaves a lock file that is no longer its own", async () => {
    const lock = await FolderLock.acquire(folder)
    await writeFile(lockFile, holderFile(process.pid))
    await lock.release()
    expect(await readFile(lockFile, "utf8")).toBe(holderFile(process.pid))
  })

  it("takes over the lock of a pid that no longer runs on this host", async () => {
    await mkdir(folder)
    await writeFile(lockFile, holderFile(deadPid))
    const lock = await FolderLock.acquire(folder)
    await expectHeldByThisProcess()
    // the stale file set aside is gone too
    expect(await readdir(folder)).toEqual([LOCK_FILE])
    await lock.release()
  })

  it("refuses a holder that runs, and one on another host, which it cannot check", async () => {
    await mkdir(folder)
    await writeFile(lockFile, holderFile(process.ppid))
    expect((await refusal()).holder).toBe(`pid ${process.ppid} on host ${hostname()} since 2024-05-01T12:00:00.000Z`)
    await writeFile(lockFile, holderFile(deadPid, "elsewhere"))
    expect((await refusal()).holder).toBe(`pid ${deadPid} on host elsewhere since 2024-05-01T12:00:00.000Z`)
  })

  it("takes over a stale lock whose last takeover crashed, and refuses one being taken over", async () => {
    await mkdir(folder)
    await writeFile(lockFile, holderFile(deadPid))
    await writeFile(claimFile, holderFile(process.ppid))
    const refused = await refusal()
    expect(refused.holder).toBe(`pid ${process.ppid} on host ${hostname()} since 2024-05-01T12:00:00.000Z`)
    expect(refused.lockFile).toBe(claimFile)

    await writeFile(claimFile, holderFile(deadPid))
    const lock = await FolderLock.acquire(folder)
    await expectHeldByThisProcess()
    expect(await readdir(folder)).toEqual([LOCK_FILE])
    await lock.release()
  })

  it("refuses an incomplete lock file while it may still be written, and takes it over once it is older", async () => {
    await mkdir(folder)
    const incomplete = [
      "",
      "{\"pid\":",
      holderFile(0),
      // read into a start-up message: no terminal escapes
      holderFile(deadPid, "\u001b[2Jhost")
    ]
    for (const text of incomplete) {
      await writeFile(lockFile, text)
      expect((await refusal()).holder).toBe("its lock file is incomplete: a bot starting right now, or one that crashed")
      await age(lockFile)
      await (await FolderLock.acquire(folder)).release()
    }
  })

  it("does not read a huge lock file whole", async () => {
    await mkdir(folder)
    // sparse: past what readFile accepts at all
    await writeFile(lockFile, "")
    await truncate(lockFile, 3 * 2 ** 30)
    expect((await refusal()).holder).toMatch(/incomplete/)
    await age(lockFile)
    await (await FolderLock.acquire(folder)).release()
  })

  it("refuses what is not a lock file: a folder, a link", async () => {
    await mkdir(lockFile, { recursive: true })
    await age(lockFile)
    expect((await refusal()).holder).toBe("its lock file is not a file a bot wrote")
    await rm(lockFile, { recursive: true })
    await writeFile(join(root, "elsewhere"), holderFile(deadPid))
    await age(join(root, "elsewhere"))
    await symlink(join(root, "elsewhere"), lockFile)
    expect((await refusal()).holder).toBe("its lock file is not a file a bot wrote")
  })

  it("lets exactly one of several starters at once hold the folder, with or without a stale lock", async () => {
    const starters = 4
    for (let round = 0; round < 40; round++) {
      await mkdir(folder, { recursive: true })
      // no lock; a stale one; an incomplete one; a stale one whose last takeover crashed
      if (round % 4 === 1 || round % 4 === 3) await writeFile(lockFile, holderFile(deadPid))
      if (round % 4 === 2) {
        await writeFile(lockFile, "")
        await age(lockFile)
      }
      if (round % 4 === 3) await writeFile(claimFile, holderFile(deadPid))
      const outcomes = await Promise.allSettled(Array.from({ length: starters }, () => FolderLock.acquire(folder)))
      const winners = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []))
      const losers = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason as unknown] : []))
      expect(winners, `round ${round}`).toHaveLength(1)
      for (const loser of losers) expect(loser, `round ${round}`).toBeInstanceOf(FolderLockedError)
      await expectHeldByThisProcess()
      expect(await readdir(folder), `round ${round}`).toEqual([LOCK_FILE])
      await winners[0]!.release()
      expect(await readdir(folder)).toEqual([])
      await rm(folder, { recursive: true })
    }
  })
})
