// Transport plumbing, for fakes, simulators and tests: the endpoint table (paths, weights, wire schemas), the signer
// and the transport service. Applications need none of it: the services of the main entry use it for them.
export * as Endpoints from "./Endpoints.js"
export * as Signer from "./Signer.js"
export * as TradingHttp from "./TradingHttp.js"
