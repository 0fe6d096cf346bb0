/**
 * The webhook server's connection slots, shared fairly between peer addresses. At most `capacity` connections are
 * open. At the cap, a new connection takes the slot of a connection that is waiting — not in a request: still sending
 * its headers, or idle between requests — of its own peer or of a peer that holds more slots than its own: of those,
 * the peer holding the most, its connection waiting the longest. When there is none, the new connection is refused.
 * So one peer may use every slot while no other asks, but never keeps a slot from a peer with fewer; behind a proxy
 * (every connection from one address) a new connection takes an idle one's slot. A connection in a request (its
 * headers in; one without the secret is answered and closed at once) is never cut for another. An IPv6 peer is its
 * /64 (`peerOf`): a host is handed a whole /64, so each of its addresses is no peer of its own.
 */

/** The peer a remote address counts as: an IPv4 address itself, an IPv6 address its /64 network. */
export const peerOf = (address: string): string => {
  if (!address.includes(":") || address.startsWith("::ffff:")) return address
  // expand "::" so the first four groups are the network's, whatever the address's shortening
  const [head = "", tail = ""] = address.split("::")
  const groups = head === "" ? [] : head.split(":")
  const missing = 8 - groups.length - (tail === "" ? 0 : tail.split(":").length)
  const full = [...groups, ...Array.from({ length: Math.max(0, missing) }, () => "0"), ...(tail === "" ? [] : tail.split(":"))]
  return `${full.slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, "")).join(":")}::/64`
}
interface Slot {
  readonly peer: string
  /** in a request (its headers complete, the answer not yet sent) */
  busy: boolean
  /** when it began to wait, in admission order: the smallest waited the longest */
  waitingSince: number
}

export type Admission<C> =
  | { readonly _tag: "Admitted"; readonly evicted: C | undefined }
  | { readonly _tag: "Refused" }

export class ConnectionSlots<C> {
  private readonly slots = new Map<C, Slot>()
  private readonly perPeer = new Map<string, number>()
  private moments = 0

  constructor(private readonly capacity: number) {}

  /**
   * A new connection from `peer`: admitted (with the connection whose slot it took, which the caller closes; that one
   * no longer holds a slot), or refused.
   */
  admit(connection: C, peer: string): Admission<C> {
    let evicted: C | undefined
    if (this.slots.size >= this.capacity) {
      evicted = this.victimFor(peer)
      if (evicted === undefined) return { _tag: "Refused" }
      this.release(evicted)
    }
    this.slots.set(connection, { peer, busy: false, waitingSince: ++this.moments })
    this.perPeer.set(peer, this.held(peer) + 1)
    return { _tag: "Admitted", evicted }
  }

  /** Its request's headers are in: the connection is in a request until `idle`. */
  busy(connection: C): void {
    const slot = this.slots.get(connection)
    if (slot !== undefined) slot.busy = true
  }

  /** Its request was answered: it waits for the next one. */
  idle(connection: C): void {
    const slot = this.slots.get(connection)
    if (slot === undefined || !slot.busy) return
    slot.busy = false
    slot.waitingSince = ++this.moments
  }

  /** The connection closed (a no-op for one that holds no slot, e.g. one evicted). */
  release(connection: C): void {
    const slot = this.slots.get(connection)
    if (slot === undefined) return
    this.slots.delete(connection)
    const held = this.held(slot.peer) - 1
    if (held === 0) this.perPeer.delete(slot.peer)
    else this.perPeer.set(slot.peer, held)
  }

  private held(peer: string): number {
    return this.perPeer.get(peer) ?? 0
  }

  private victimFor(peer: string): C | undefined {
    const own = this.held(peer)
    let victim: { readonly connection: C; readonly held: number; readonly since: number } | undefined
    for (const [connection, slot] of this.slots) {
      if (slot.busy) continue
      const held = this.held(slot.peer)
      if (slot.peer !== peer && held <= own) continue
      if (victim === undefined || held > victim.held || (held === victim.held && slot.waitingSince < victim.since)) {
        victim = { connection, held, since: slot.waitingSince }
      }
    }
    return victim?.connection
  }
}
