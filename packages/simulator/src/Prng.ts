/**
 * The simulator's only source of randomness: a seeded mulberry32 generator. Each concern (the market, one account's
 * ledger, …) draws from its own stream derived from the seed and a label, so adding symbols or requests in one place
 * does not shift what the others draw, and one seed replays the same run.
 */
const SQRT3 = 1.7320508075688772

/** FNV-1a over the label's UTF-16 units: a stable 32-bit seed per stream. */
const hash = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

export class Prng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** An independent stream for one concern. */
  static derive(seed: number, label: string): Prng {
    return new Prng(hash(`${seed}/${label}`))
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }

  pick<A>(items: ReadonlyArray<A>): A {
    const item = items[Math.floor(this.next() * items.length)]
    if (item === undefined) throw new RangeError("pick from an empty list")
    return item
  }

  /** About standard normal (sum of four uniforms): plain arithmetic, so every platform draws the same numbers. */
  gaussian(): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * SQRT3
  }
}
