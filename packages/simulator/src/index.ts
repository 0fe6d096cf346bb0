export { startSimulator } from "./simulator.js"
export type { DemoAccount, Fault, OperationName, RunningSimulator, SimulatorOptions, WsFaults, WsStats } from "./types.js"
