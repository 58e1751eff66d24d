import { Schema } from "effect"

/** An amount carries more decimals than its unit's minor unit can hold (1.005 NGN, 0.5 coins). */
export class PrecisionExceeded extends Schema.TaggedError<PrecisionExceeded>()("PrecisionExceeded", {
  unit: Schema.String,
  amount: Schema.String,
  scale: Schema.Int,
  message: Schema.String
}) {}

/**
 * An amount beyond what the ledger stores (minor units in a signed 64-bit column, with room for
 * system balances that sum many of them).
 */
export class AmountOutOfRange extends Schema.TaggedError<AmountOutOfRange>()("AmountOutOfRange", {
  unit: Schema.String,
  amount: Schema.String,
  message: Schema.String
}) {}
