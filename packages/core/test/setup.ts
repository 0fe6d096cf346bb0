import { addEqualityTesters } from "@effect/vitest"

// compare Effect values (BigDecimal, Option, DateTime) by their own Equal, not by their object layout
addEqualityTesters()
