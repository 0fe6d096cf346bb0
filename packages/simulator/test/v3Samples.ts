/**
 * The official V3 response samples (docs/v3.md names the endpoints; the samples are those of the V3 fact sheet the
 * project keeps), verbatim. Ids above 2^53 in them are JSON numbers, float-rounded as printed: parse with care.
 */
export const V3_SAMPLES = {
  error: `{
  "code": -1121,
  "msg": "Invalid symbol."
}`,
  apiTradingSymbols: `[
  "BTCUSDT",
  "ETHUSDT",
  "BCHUSDT"
]`,
  openOrders: `[
  {
    "avgPrice": "0",
    "clientOrderId": "open-1",
    "cumQuote": "0",
    "executedQty": "0",
    "orderId": 702345678901234600,
    "origQty": "0.02",
    "price": "69500",
    "reduceOnly": false,
    "side": "SELL",
    "positionSide": "SHORT",
    "status": "NEW",
    "stopPrice": "0",
    "symbol": "BTCUSDT",
    "time": 1764505800000,
    "timeInForce": "GTC",
    "type": "LIMIT",
    "updateTime": 1764505800000,
    "workingType": "CONTRACT_PRICE",
    "priceProtect": false,
    "priceMatch": "NONE",
    "selfTradePreventionMode": "NONE",
    "goodTillDate": 0
  }
]`,
  orderDetail: `{
  "avgPrice": "68990.5",
  "clientOrderId": "my-order-0001",
  "cumQuote": "689.905",
  "executedQty": "0.01",
  "orderId": 702345678901234567,
  "origQty": "0.01",
  "price": "69000",
  "reduceOnly": false,
  "side": "BUY",
  "positionSide": "LONG",
  "status": "FILLED",
  "stopPrice": "0",
  "symbol": "BTCUSDT",
  "time": 1764505700123,
  "timeInForce": "GTC",
  "type": "LIMIT",
  "updateTime": 1764505701456,
  "workingType": "CONTRACT_PRICE"
}`,
  orderHistory: `[
  {
    "orderId": 702345678901234567,
    "symbol": "BTCUSDT",
    "side": "BUY",
    "positionSide": "LONG",
    "status": "FILLED",
    "type": "LIMIT",
    "time": 1764400000000,
    "price": "65000",
    "origQty": "0.01",
    "executedQty": "0.01",
    "avgPrice": "64999.5",
    "updateTime": 1764400001234,
    "clientOrderId": "hist-1",
    "cumQuote": "649.995",
    "timeInForce": "GTC"
  }
]`,
  userTrades: `[
  {
    "id": 801234567890123456,
    "orderId": 702345678901234567,
    "symbol": "BTCUSDT",
    "buyer": true,
    "commission": "0.138",
    "commissionAsset": "USDT",
    "maker": false,
    "price": "69000",
    "qty": "0.01",
    "quoteQty": "690",
    "realizedPnl": "0",
    "side": "BUY",
    "positionSide": "LONG",
    "time": 1764505701456
  }
]`,
  cancelOrder: `{
  "orderId": "702345678901234567",
  "origClientOrderId": "my-order-0001",
  "success": true,
  "errorCode": "",
  "errorMessage": ""
}`,
  cancelOrders: `[
  {
    "orderId": "702345678901234567",
    "origClientOrderId": "",
    "success": true,
    "errorCode": "",
    "errorMessage": ""
  },
  {
    "orderId": "702345678901234568",
    "origClientOrderId": "",
    "success": false,
    "errorCode": "ORDER_NOT_FOUND",
    "errorMessage": "orderId not exist"
  }
]`,
  /**
   * Not an official sample: the form the live service answers a batch cancel with (docs/v3.md §7, recorded by a
   * widely used client library), written here from that shape.
   */
  cancelOrdersLive: `{
  "orderList": [
    {
      "orderId": "702345678901234567",
      "origClientOrderId": "",
      "success": true,
      "errorCode": "",
      "errorMessage": ""
    }
  ]
}`,
  placeAlgoOrder: `{
  "orderId": "702345678901234700",
  "clientOrderId": "algo-20240201-1",
  "success": true,
  "errorCode": "",
  "errorMessage": ""
}`,
  cancelAlgoOrder: `{
  "orderId": "712345678901234567",
  "origClientOrderId": "",
  "success": true,
  "errorCode": "",
  "errorMessage": ""
}`,
  allAlgoOrders: `{
  "orders": [
    {
      "algoId": 812345678901234500,
      "clientAlgoId": "algo-20240201-1",
      "algoType": "PLAN",
      "orderType": "STOP",
      "symbol": "BTCUSDT",
      "side": "BUY",
      "positionSide": "LONG",
      "timeInForce": "GTC",
      "quantity": "0.01",
      "algoStatus": "TRIGGERED",
      "actualOrderId": 702345678901234700,
      "actualPrice": "68850",
      "triggerPrice": "68900",
      "price": "68800",
      "workingType": "MARK_PRICE",
      "createTime": 1764505800123,
      "updateTime": 1764506000456,
      "triggerTime": 1764506000123
    }
  ],
  "hasMore": false,
  "nextPage": 0
}`,
  positions: `[
  {
    "id": 689987235755328154,
    "asset": "USDT",
    "symbol": "BTCUSDT",
    "side": "LONG",
    "marginType": "CROSSED",
    "separatedMode": "COMBINED",
    "separatedOpenOrderId": 0,
    "leverage": "100",
    "size": "0.020000",
    "openValue": "1801.0670000",
    "openFee": "0.70731060",
    "fundingFee": "1.22618160",
    "marginSize": "17.154980",
    "isolatedMargin": "0",
    "isAutoAppendIsolatedMargin": false,
    "cumOpenSize": "0.020000",
    "cumOpenValue": "1801.0670000",
    "cumOpenFee": "0.70731060",
    "cumCloseSize": "0",
    "cumCloseValue": "0",
    "cumCloseFee": "0",
    "cumFundingFee": "1.22618160",
    "cumLiquidateFee": "0",
    "createdMatchSequenceId": 7027745116,
    "updatedMatchSequenceId": 7040274110,
    "createdTime": 1764505776347,
    "updatedTime": 1764588886461,
    "unrealizePnl": "-85.5690000",
    "liquidatePrice": "0"
  }
]`,
  closePositions: `[
  {
    "positionId": 689987235755328154,
    "success": true,
    "successOrderId": 702345678901234580,
    "errorMessage": ""
  }
]`,
  allOpenOrders: `[
  {
    "orderId": 702345678901234567,
    "success": true,
    "errorCode": "",
    "errorMessage": ""
  }
]`,
  balance: `[
  {
    "asset": "USDT",
    "balance": "5696.49288823",
    "availableBalance": "5413.06877369",
    "frozen": "81.28240000",
    "unrealizePnl": "-34.55300000"
  }
]`,
  accountConfig: `{
  "canTrade": true,
  "canDeposit": true,
  "canWithdraw": true,
  "dualSidePosition": true,
  "updateTime": 1713339011237
}`,
  commissionRate: `{
  "symbol": "BTCUSDT",
  "makerCommissionRate": "0.0002",
  "takerCommissionRate": "0.0004"
}`,
  symbolConfig: `[
  {
    "symbol": "BTCUSDT",
    "marginType": "CROSSED",
    "separatedType": "COMBINED",
    "crossLeverage": "20",
    "isolatedLongLeverage": "20",
    "isolatedShortLeverage": "20"
  }
]`,
  leverage: `{
  "symbol": "BTCUSDT",
  "marginType": "ISOLATED",
  "crossLeverage": "0",
  "isolatedLongLeverage": "20",
  "isolatedShortLeverage": "20"
}`,
  marginType: `{
  "code": "200",
  "msg": "success",
  "requestTime": 1764505776347
}`,
  income: `{
  "hasNextPage": true,
  "nextKey": {
    "nextKeyId": 686960019383517338,
    "nextKeyTime": 1763784031721
  },
  "items": [
    {
      "billId": 686960019383517338,
      "asset": "USDT",
      "symbol": "BTCUSDT",
      "income": "0.08266646",
      "incomeType": "position_funding",
      "balance": "4738.70667369",
      "fillFee": "0",
      "time": 1763784031721,
      "transferReason": "UNKNOWN_TRANSFER_REASON"
    }
  ]
}`,
  spotAccount: `{
  "makerCommission": 10,
  "takerCommission": 10,
  "commissionRates": {
    "maker": "0.0010",
    "taker": "0.0010"
  },
  "canTrade": true,
  "canWithdraw": true,
  "canDeposit": true,
  "permissions": ["SPOT_TRADING"],
  "balances": [
    {
      "asset": "BTC",
      "free": "0.004",
      "locked": "0"
    },
    {
      "asset": "USDT",
      "free": "1200.00000000",
      "locked": "0"
    }
  ],
  "uid": 1002003004
}`,
  exchangeInfo: `{
  "assets": [
    {
      "asset": "BTC",
      "marginAvailable": false
    },
    {
      "asset": "USDT",
      "marginAvailable": true
    }
  ],
  "rateLimits": [
    {
      "rateLimitType": "REQUEST_WEIGHT",
      "interval": "SECOND",
      "intervalNum": 10,
      "limit": 2000
    },
    {
      "rateLimitType": "ORDERS",
      "interval": "SECOND",
      "intervalNum": 10,
      "limit": 5
    }
  ],
  "symbols": [
    {
      "symbol": "BTCUSDT",
      "displaySymbol": "BTCUSDT",
      "baseAsset": "BTC",
      "quoteAsset": "USDT",
      "marginAsset": "USDT",
      "pricePrecision": 1,
      "quantityPrecision": 6,
      "baseAssetPrecision": 3,
      "quotePrecision": 8,
      "contractVal": 0.000001,
      "delivery": [
        "00:00:00",
        "06:00:00",
        "12:00:00",
        "18:00:00"
      ],
      "forwardContractFlag": true,
      "minLeverage": 1,
      "maxLeverage": 408,
      "buyLimitPriceRatio": 0.016,
      "sellLimitPriceRatio": 0.015,
      "makerFeeRate": 0,
      "takerFeeRate": 0.001,
      "minOrderSize": 0.0001,
      "maxOrderSize": 10000,
      "maxPositionSize": 20000000,
      "marketOpenLimitSize": 12000
    }
  ]
}`,
  depth: `{
  "bids": [
    ["69350.1", "12.5"],
    ["69349.8", "1.2"]
  ],
  "asks": [
    ["69351.0", "3.6"],
    ["69351.2", "0.8"]
  ],
  "lastUpdateId": 1234567890123
}`,
  klines: `[
  [
    1764505740000,
    "69340.1",
    "69380.0",
    "69320.5",
    "69355.2",
    "25.678",
    1764505800000,
    "1782223.45",
    125,
    "12.345",
    "856789.12"
  ]
]`,
  time: `{
  "serverTime": 1764505776347
}`,
  ticker24hr: `[
  {
    "symbol": "BTCUSDT",
    "priceChange": "150.5",
    "priceChangePercent": "0.22",
    "lastPrice": "69350.5",
    "openPrice": "69200.0",
    "highPrice": "69980.0",
    "lowPrice": "68888.0",
    "volume": "1234.567",
    "quoteVolume": "85679012.45",
    "markPrice": "69348.7",
    "indexPrice": "69347.9",
    "openTime": 1764419370000,
    "closeTime": 1764505770000
  }
]`,
  bookTicker: `[
  {
    "symbol": "BTCUSDT",
    "bidPrice": "69350.1",
    "bidQty": "12.5",
    "askPrice": "69351.0",
    "askQty": "8.3",
    "time": 1764505776000
  }
]`,
  openAlgoOrders: `[
  {
    "algoId": 812345678901234500,
    "clientAlgoId": "algo-20240201-1",
    "algoType": "CONDITIONAL",
    "orderType": "STOP",
    "symbol": "BTCUSDT",
    "side": "BUY",
    "positionSide": "LONG",
    "timeInForce": "GTC",
    "quantity": "0.01",
    "algoStatus": "UNTRIGGERED",
    "actualOrderId": null,
    "actualPrice": "0",
    "triggerPrice": "68900",
    "price": "68800",
    "tpTriggerPrice": "70500",
    "tpPrice": "70500",
    "slTriggerPrice": "68000",
    "slPrice": "0",
    "tpOrderType": "MARK_PRICE",
    "workingType": "MARK_PRICE",
    "closePosition": false,
    "reduceOnly": false,
    "createTime": 1764505800123,
    "updateTime": 1764505800123,
    "triggerTime": 0
  }
]`,
  placeOrder: `{
  "orderId": "702345678901234567",
  "clientOrderId": "my-order-0001",
  "success": true,
  "errorCode": "",
  "errorMessage": ""
}`,
  batchOrders: `[
  {
    "orderId": "702345678901234567",
    "clientOrderId": "batch-1",
    "success": true,
    "errorCode": "",
    "errorMessage": ""
  }
]`,
  spotBills: `[
{
"billId": "701234567890123456",
"coinId": 2,
"coinName": "USDT",
"bizType": "trade_out",
"fillSize": "0.005",
"fillValue": "0",
"deltaAmount": "-100.00000000",
"afterAmount": "900.00000000",
"fees": "0.10000000",
"cTime": "1764505800123"
}
]`,
  affiliate: `{
"pages": 1,
"pageSize": 100,
"total": 98,
"records": [
{
"uid": "3066862172",
"depositAmount": "0",
"withdrawalAmount": "0",
"spotTradingAmount": "0",
"futuresTradingAmount": "0",
"commission": "0"
}
]
}`
} as const
