/**
 * The official response samples of docs/trading.md, verbatim (the `//` comments of the depth and candles samples
 * removed, as they are not JSON). Ids above 2^53 in them are JSON numbers: parse with care.
 */
export const SAMPLES = {
  openOrders: `[
  {
    "symbol": "cmt_btcusdt",
    "size": "0.010000",
    "client_oid": "175287228528278",
    "createTime": "1764505828770",
    "filled_qty": "0",
    "fee": "0",
    "order_id": "689987455633326746",
    "price": "88888.0",
    "price_avg": "0",
    "status": "open",
    "type": "open_long",
    "order_type": "normal",
    "totalProfits": "0",
    "contracts": 10000,
    "filledQtyContracts": 0,
    "presetTakeProfitPrice": null,
    "presetStopLossPrice": null
  }
]`,
  orderDetail: `{
  "symbol": "cmt_btcusdt",
  "size": "0.010000",
  "client_oid": "1763604184027_122",
  "createTime": "1763708511502",
  "filled_qty": "0.010000",
  "fee": "0.51357900",
  "order_id": "686643264626885530",
  "price": "0.0",
  "price_avg": "85596.5",
  "status": "filled",
  "type": "open_long",
  "order_type": "ioc",
  "totalProfits": "0",
  "contracts": 10000,
  "filledQtyContracts": 10000,
  "presetTakeProfitPrice": "100000.0",
  "presetStopLossPrice": "10000.0"
}`,
  orderHistory: `[
  {
    "symbol": "cmt_btcusdt",
    "size": "0.010000",
    "client_oid": "1478527825782587",
    "createTime": "1764505776340",
    "filled_qty": "0.010000",
    "fee": "0.54731220",
    "order_id": "689987235725968026",
    "price": "0.0",
    "price_avg": "91218.7",
    "status": "filled",
    "type": "open_long",
    "order_type": "ioc",
    "totalProfits": "0",
    "contracts": 10000,
    "filledQtyContracts": 10000,
    "presetTakeProfitPrice": null,
    "presetStopLossPrice": null
  }
]`,
  fills: `{
  "list": [
    {
      "tradeId": 0,
      "orderId": 0,
      "symbol": "cmt_btcusdt",
      "marginMode": "SHARED",
      "separatedMode": "SEPARATED",
      "positionSide": "LONG",
      "orderSide": "BUY",
      "fillSize": "67",
      "fillValue": "12",
      "fillFee": "67",
      "liquidateFee": "MAKER",
      "realizePnl": "83",
      "direction": "OPEN_LONG",
      "liquidateType": "FORCE_LIQUIDATE",
      "legacyOrdeDirection": "OPEN_LONG",
      "createdTime": 1716712170527
    }
  ],
  "nextFlag": false,
  "totals": 0
}`,
  cancelOrder: `{
    "order_id": "596476148997685805",
    "client_oid": null,
    "result": true,
    "err_msg": null
}`,
  cancelOrders: `{
  "result": true,
  "orderIds": ["596471064624628269"],
  "clientOids": [],
  "cancelOrderResultList": [
    {
      "err_msg": "",
      "order_id": "596471064624628269",
      "client_oid": "",
      "result": true
    }
  ],
  "failInfos": []
}`,
  cancelPlanOrder: `{
    "order_id": "596480271352594989",
    "client_oid": null,
    "result": true,
    "err_msg": null
}`,
  planOrderHistory: `{
    "list": [{
        "symbol": "cmt_btcusdt",
        "size": "1",
        "client_oid": "1234567890",
        "createTime": "1742213506548",
        "filled_qty": "0.5",
        "fee": "0.01",
        "order_id": "461234125",
        "price": "50000.00",
        "price_avg": "49900.00",
        "status": "1",
        "type": "1",
        "order_type": "0",
        "totalProfits": "200.00",
        "triggerPrice": "48000.00",
        "triggerPriceType": "",
        "triggerTime": "1742213506548",
        "presetTakeProfitPrice": null,
        "presetStopLossPrice": null
    }],
    "nextPage": false
}`,
  placePlanOrder: `{
    "client_oid": null,
    "order_id": "596480271352594989"
}`,
  closePositions: `[
  {
    "positionId": 690800371848708186,
    "successOrderId": 696023766399976282,
    "errorMessage": "",
    "success": true
  }
]`,
  cancelAllOrders: `[
  {
    "orderId": 696026685023191898,
    "success": true
  }
]`,
  positions: `[
    {
        "id": 0,
        "account_id": 0,
        "coin_id": 2,
        "contract_id": 10000002,
        "side": "Long",
        "margin_mode": "SHARED",
        "separated_mode": "COMBINED",
        "separated_open_order_id": 0,
        "leverage": "1",
        "size": "0.",
        "open_value": "0",
        "open_fee": "0.000000",
        "funding_fee": "0.000001",
        "isolated_margin": "0",
        "is_auto_append_isolated_margin": false,
        "cum_open_size": "0",
        "cum_open_value": "09",
        "cum_open_fee": "0.000000",
        "cum_close_size": "0",
        "cum_close_value": "0",
        "cum_close_fee": "0.000000",
        "cum_funding_fee": "0",
        "cum_liquidate_fee": "0",
        "created_match_sequence_id": 0,
        "updated_match_sequence_id": 0,
        "created_time": 1708395319042,
        "updated_time": 1713341325556
    }
]`,
  futuresAssets: `[
  {
    "coinName": "USDT",
    "available": "5413.06877369",
    "equity": "5696.49288823",
    "frozen": "81.28240000",
    "unrealizePnl": "-34.55300000"
  }
]`,
  accounts: `{
  "account": {
    "defaultFeeSetting": {
      "is_set_fee_rate": true,
      "taker_fee_rate": "0.00072000",
      "maker_fee_rate": "0.00018000",
      "is_set_fee_discount": false,
      "fee_discount": "0",
      "is_set_taker_maker_fee_discount": false,
      "taker_fee_discount": "0",
      "maker_fee_discount": "0"
    },
    "feeSetting": [
      {
        "symbol": "cmt_btcusdt",
        "is_set_fee_rate": false,
        "taker_fee_rate": "0.00072000",
        "maker_fee_rate": "0.00018000",
        "is_set_fee_discount": false,
        "fee_discount": "0",
        "is_set_taker_maker_fee_discount": false,
        "taker_fee_discount": "0",
        "maker_fee_discount": "0"
      }
    ],
    "modeSetting": [
      {
        "symbol": "cmt_btcusdt",
        "marginMode": "SHARED",
        "separatedMode": "COMBINED",
        "positionMode": "HEDGE"
      }
    ],
    "leverageSetting": [
      {
        "symbol": "cmt_btcusdt",
        "isolated_long_leverage": "1",
        "isolated_short_leverage": "100",
        "cross_leverage": "20.00"
      }
    ],
    "createOrderRateLimitPerMinute": 0,
    "createOrderDelayMilliseconds": 0,
    "createdTime": 1728493655673,
    "updatedTime": 1764221456649
  },
  "collateral": [
    {
      "coin": "USDT",
      "marginMode": "SHARED",
      "crossSymbol": null,
      "isolatedPositionId": 0,
      "amount": "4663.20125463",
      "pending_deposit_amount": "0.00000000",
      "pending_withdraw_amount": "0.000000",
      "pending_transfer_in_amount": "0",
      "pending_transfer_out_amount": "0.00000000",
      "is_liquidating": false,
      "legacy_amount": "5662.90202073",
      "cum_deposit_amount": "6860279.70836100",
      "cum_withdraw_amount": "6647240.391794",
      "cum_transfer_in_amount": "452.09021000",
      "cum_transfer_out_amount": "292.75030000",
      "cum_margin_move_in_amount": "10208.01422763",
      "cum_margin_move_out_amount": "12366.05275584",
      "cum_position_open_long_amount": "4672962.7674221",
      "cum_position_open_short_amount": "287777.669958",
      "cum_position_close_long_amount": "4532201.78518940",
      "cum_position_close_short_amount": "287888.538892",
      "cum_position_fill_fee_amount": "0.59982046",
      "cum_position_liquidate_fee_amount": "76.930498",
      "cum_position_funding_amount": "9859.37164167",
      "cum_order_fill_fee_income_amount": "0",
      "cum_order_liquidate_fee_income_amount": "0",
      "created_time": 1728493664997,
      "updated_time": 1764306706243
    }
  ],
  "version": null
}`,
  futuresBills: `{
  "hasNextPage": true,
  "items": [
    {
      "billId": 686960019383517338,
      "coin": "USDT",
      "symbol": "cmt_btcusdt",
      "amount": "0.08266646",
      "businessType": "position_funding",
      "balance": "4738.70667369",
      "fillFee": "0",
      "transferReason": "UNKNOWN_TRANSFER_REASON",
      "ctime": 1763784031721
    }
  ]
}`,
  contracts: `[
  {
    "symbol": "cmt_btcusdt",
    "underlying_index": "BTC",
    "quote_currency": "USDT",
    "coin": "USDT",
    "contract_val": "0",
    "delivery": [
      "00:00:00",
      "08:00:00",
      "16:00:00"
    ],
    "size_increment": "5",
    "tick_size": "1",
    "forwardContractFlag": true,
    "priceEndStep": 1,
    "minLeverage": 1,
    "maxLeverage": 500,
    "buyLimitPriceRatio": "0.015",
    "sellLimitPriceRatio": "0.015",
    "makerFeeRate": "0.0002",
    "takerFeeRate": "0.0006",
    "minOrderSize": "0.0001",
    "maxOrderSize": "100000",
    "maxPositionSize": "1000000"
  }
]`,
  accountSettings: `{
  "cmt_ethusdt": {
    "isolated_long_leverage": "20.00",
    "isolated_short_leverage": "20.00",
    "cross_leverage": "20.00"
  }
}`,
  setLeverage: `{
    "msg": "success",
    "requestTime": 1713339011237,
    "code": "200"
}`,
  time: `{
    "epoch": "1716710918.113",
    "iso": "2024-05-26T08:08:38.113Z",
    "timestamp": 1716710918113
}`,
  ticker: `{
  "symbol": "cmt_btcusdt",
  "last": "90755.3",
  "best_ask": "90755.4",
  "best_bid": "90755.3",
  "high_24h": "91130.0",
  "low_24h": "90097.3",
  "volume_24h": "2321170547.37995",
  "timestamp": "1764482511864",
  "priceChangePercent": "0.000474",
  "base_volume": "25615.0755",
  "markPrice": "90755.2",
  "indexPrice": "90797.161"
}`,
  depth: `{
   "asks":[
         [
            "8858.0", 
            "19299"
        ]   
     ],
   "bids":[
         [
            "7466.0", 
            "499"  
        ],
         [
            "4995.0",
            "12500"
        ]
     ],
   "timestamp":"1591237821479" 
}`,
  candles: `[
    [
        "1716707460000",
        "69174.3",
        "69174.4",
        "69174.1",
        "69174.3",
        "0", 
        "0.011" 
    ]
]`,
  spotAssets: `{
  "code": "00000",
  "msg": "success",
  "requestTime": 1743729400189,
  "data": [{
    "coinId": 1,
    "coinName": "BTC",
    "available": "0.0040000000000000",
    "frozen": "0",
    "equity": "0.0040000000000000"
  }, {
    "coinId": 2,
    "coinName": "USDT",
    "available": "10000999657.8927028500000000",
    "frozen": "0",
    "equity": "10000999657.8927028500000000"
  }]
}`
} as const
