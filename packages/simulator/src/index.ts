export { startSimulator } from "./simulator.js"
export type { DemoAccount, Fault, OperationName, RunningSimulator, SimulatorOptions } from "./types.js"
