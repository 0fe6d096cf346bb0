/** The answers a `latency` fault holds back: timers that close() clears, and that cannot be armed after it. */
export class Delays {
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false

  /** Runs `work` after `ms`; false (and nothing armed) once closed. */
  after(ms: number, work: () => void): boolean {
    if (this.closed) return false
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      work()
    }, ms)
    // the server keeps the process alive while it listens; a held answer alone should not
    timer.unref()
    this.timers.add(timer)
    return true
  }

  close(): void {
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
