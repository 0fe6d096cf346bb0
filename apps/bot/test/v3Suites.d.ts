// A suite imported again under `?v3` (harness.ts, `speak`): a fresh copy of a test file, which exports nothing.
declare module "*.test.js?v3" {}
