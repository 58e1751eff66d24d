import { ReportProblem } from "@payments-gaming/domain/reconciliation"
import { Schema } from "effect"

/**
 * A settlement report refused as a whole (CONTRACT §7): the error envelope, its `errors` naming each
 * bad line and column (`{ line, column, message }`, the header is line 1, at most 100 entries; the
 * message gives the total), and nothing stored. `timestamp` is stamped by the response middleware.
 */
export class ReportRefused extends Schema.Error<ReportRefused>("ReportRefused")(
  {
    timestamp: Schema.String,
    status: Schema.Literal(400),
    success: Schema.Literal(false),
    message: Schema.String,
    data: Schema.Null,
    errors: Schema.Array(ReportProblem)
  },
  { httpApiStatus: 400 }
) {}

export const reportRefused = (message: string, errors: ReadonlyArray<typeof ReportProblem.Type>) =>
  new ReportRefused({ timestamp: "", status: 400, success: false, message, data: null, errors })
