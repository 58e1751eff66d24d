import { Schema } from "effect"

/** One problem of a refused report: 1-based line (the header is line 1), the column's name or null. */
export const ReportProblem = Schema.Struct({
  line: Schema.Int,
  column: Schema.NullOr(Schema.String),
  message: Schema.String
})

/**
 * The report breaks the format, or names a (kind, reference) twice: nothing was stored. `errors`
 * are the first problems in file order (at most `MAX_REPORTED_ERRORS`), `moreErrors` how many more.
 */
export class InvalidReport extends Schema.TaggedError<InvalidReport>()("InvalidReport", {
  message: Schema.String,
  errors: Schema.Array(ReportProblem),
  moreErrors: Schema.Int
}) {}

export class ReconciliationNotFound extends Schema.TaggedError<ReconciliationNotFound>()("ReconciliationNotFound", {
  reconciliationId: Schema.String,
  message: Schema.String
}) {}

/** No break of that id in that reconciliation. */
export class BreakNotFound extends Schema.TaggedError<BreakNotFound>()("BreakNotFound", {
  breakId: Schema.String,
  message: Schema.String
}) {}

/** The break is resolved already; a resolution is final. */
export class BreakAlreadyResolved extends Schema.TaggedError<BreakAlreadyResolved>()("BreakAlreadyResolved", {
  breakId: Schema.String,
  message: Schema.String
}) {}

/**
 * A `credit` resolve that cannot credit: not an open `missing_in_ledger` break of a
 * `virtualaccount.credit` line, the account unknown or linked in another currency, an event of the
 * reference received since the import, or its deposit already in the ledger. Nothing changed.
 */
export class CreditRefused extends Schema.TaggedError<CreditRefused>()("CreditRefused", {
  breakId: Schema.String,
  message: Schema.String
}) {}
