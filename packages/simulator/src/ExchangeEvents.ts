/**
 * What the exchange tells its observers (the WebSocket layer) after each state change: the market moved, an order
 * changed without an execution (placed and resting or waiting for its trigger, canceled), an execution happened,
 * funding was settled, or a leverage change re-margined a position. An observer list, so the engine knows nothing of
 * who listens.
 */
import type { Position } from "./Futures.js"
import type { Order, Trade } from "./Orders.js"

export type ExchangeEvent =
  /** a tick moved every symbol (`symbol` undefined) or `setPrice` moved one */
  | { readonly _tag: "MarketMoved"; readonly symbol: string | undefined }
  /** a normal order (or a triggered plan order) now resting, a plan order placed to wait for its trigger, or a cancel: no execution */
  | { readonly _tag: "OrderChanged"; readonly order: Order }
  /** one execution: `trade.order` as it stands after it, and the position it changed (size 0 once closed) */
  | { readonly _tag: "Executed"; readonly trade: Trade; readonly position: Position | undefined }
  /** a funding settlement booked on the position */
  | { readonly _tag: "Funded"; readonly position: Position }
  /** an open position now at another leverage (and margin) */
  | { readonly _tag: "Releveraged"; readonly position: Position }

export type Observer = (event: ExchangeEvent) => void

export class ExchangeEvents {
  private observers: ReadonlyArray<Observer> = []

  /** Adds an observer; the answer removes it. */
  observe(observer: Observer): () => void {
    this.observers = [...this.observers, observer]
    return () => {
      this.observers = this.observers.filter((candidate) => candidate !== observer)
    }
  }

  emit(event: ExchangeEvent): void {
    for (const observer of this.observers) observer(event)
  }
}
