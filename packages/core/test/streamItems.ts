/** Wire records of the paged and windowed reads, one builder each, for the tests of the streams that walk them. */

/** What V2's normal and plan orders share. */
const v2OrderFields = (id: number, time: number) => ({
  symbol: "cmt_btcusdt",
  size: "1",
  createTime: String(time),
  filled_qty: "0",
  fee: "0",
  order_id: String(id),
  price: "100",
  totalProfits: "0"
})

/** A V2 normal order (`order/current`, `order/history`). */
export const v2Order = (id: number, time: number) => ({
  ...v2OrderFields(id, time),
  client_oid: `c${id}`,
  price_avg: "0",
  status: "open",
  type: "open_long",
  order_type: "normal",
  presetTakeProfitPrice: null,
  presetStopLossPrice: null
})

/** A V2 fill (`order/fills`); its order id is past 2^53. */
export const v2Fill = (id: number, time: number) => ({
  tradeId: id,
  orderId: String(700000000000000000n + BigInt(id)),
  symbol: "cmt_btcusdt",
  marginMode: "SHARED",
  separatedMode: "SEPARATED",
  positionSide: "LONG",
  orderSide: "BUY",
  fillSize: "1",
  fillValue: "100",
  fillFee: "0.1",
  liquidateFee: "",
  realizePnl: "0",
  direction: "OPEN_LONG",
  liquidateType: "",
  legacyOrdeDirection: "OPEN_LONG",
  createdTime: time
})

/** A V2 plan order (`order/currentPlan`, and `order/historyPlan`'s `list`). */
export const v2PlanOrder = (id: number, time: number) => ({
  ...v2OrderFields(id, time),
  client_oid: `p${id}`,
  price_avg: "",
  status: "0",
  type: "1",
  order_type: "0",
  triggerPrice: "101",
  triggerPriceType: "LIMIT",
  triggerTime: ""
})

/** A V3 fill (`userTrades`). */
export const v3Fill = (id: number, time: number) => ({
  id,
  orderId: 7000 + id,
  symbol: "BTCUSDT",
  buyer: true,
  commission: "0.1",
  commissionAsset: "USDT",
  maker: false,
  price: "100",
  qty: "1",
  quoteQty: "100",
  realizedPnl: "0",
  side: "BUY",
  positionSide: "LONG",
  time
})

/** A V3 algo order (`openAlgoOrders`, and `allAlgoOrders`' `orders`). */
export const v3PlanOrder = (id: number, time: number) => ({
  algoId: id,
  clientAlgoId: `a${id}`,
  algoType: "CONDITIONAL",
  orderType: "STOP",
  symbol: "BTCUSDT",
  side: "BUY",
  positionSide: "LONG",
  timeInForce: "GTC",
  quantity: "1",
  algoStatus: "UNTRIGGERED",
  actualOrderId: null,
  actualPrice: "0",
  triggerPrice: "101",
  price: "100",
  workingType: "MARK_PRICE",
  createTime: time,
  updateTime: time,
  triggerTime: 0
})
