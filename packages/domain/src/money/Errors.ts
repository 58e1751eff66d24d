import { Schema } from "effect"

/** An amount carries more decimals than its unit's minor unit can hold (1.005 NGN, 0.5 coins). */
export class PrecisionExceeded extends Schema.TaggedError<PrecisionExceeded>()("PrecisionExceeded", {
  unit: Schema.String,
  amount: Schema.String,
  scale: Schema.Int,
  message: Schema.String
}) {}
