import { open } from "node:fs/promises"

/** Files the bot writes hold account data (ledger, invited users, logs): only their owner may read them. */
export const PRIVATE_FILE = 0o600
export const PRIVATE_DIR = 0o700

/** Flushes a folder's entries (a new name, a rename, a removal) to disk: the file's own flush does not cover its name. */
export const syncFolder = async (directory: string): Promise<void> => {
  const folder = await open(directory, "r")
  try {
    await folder.sync()
  } finally {
    await folder.close()
  }
}
