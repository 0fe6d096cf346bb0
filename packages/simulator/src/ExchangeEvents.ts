/**
 * What the exchange tells its observers (the WebSocket layer) after each state change: the market moved, an order
 * changed without an execution (placed and resting or waiting for its trigger, canceled), an execution happened,
 * funding was settled, or a leverage change re-margined a position. An observer list, so the engine knows nothing of
 * who listens: the engines name the events they tell and are handed where to tell them.
 */
import type { OrdersEvent } from "./Orders.js"

export type ExchangeEvent =
  /** a tick moved every symbol (`symbol` undefined) or `setPrice` moved one */
  | { readonly _tag: "MarketMoved"; readonly symbol: string | undefined }
  /** what the orders and their futures side tell (Orders.ts, Futures.ts) */
  | OrdersEvent

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
