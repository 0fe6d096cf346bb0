/** Files the bot writes hold account data (ledger, invited users, logs): only their owner may read them. */
export const PRIVATE_FILE = 0o600
export const PRIVATE_DIR = 0o700
