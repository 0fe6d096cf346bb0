/** Updates being handled, so a shutdown can let them finish. */
export class Inflight {
  private readonly running = new Set<Promise<void>>()

  track(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.running.delete(tracked))
    this.running.add(tracked)
  }

  /** Resolves when every tracked update is done, or after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))
    await Promise.race([Promise.all(this.running), timeout])
    clearTimeout(timer)
  }
}
