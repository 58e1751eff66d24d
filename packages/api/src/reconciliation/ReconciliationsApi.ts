import {
  BreakCursor,
  BreakId,
  BreakKind,
  BreakPage,
  BreakStatus,
  BreakView,
  ReconciliationCursor,
  ReconciliationId,
  ReconciliationPage,
  ReconciliationView,
  ResolveRequest,
  SettlementDate
} from "@payments-gaming/domain/reconciliation"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, Conflict, NotFound, PayloadTooLarge, UnsupportedMediaType } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { RequireAdmin } from "../middleware/RequireAdmin.ts"
import { PageQuery } from "../Paging.ts"
import { RECONCILIATIONS_PATH, REPORT_MEDIA_TYPE } from "../Paths.ts"
import { ReadsRawBody } from "../RoutePolicy.ts"
import { ReportRefused } from "./ReportRefused.ts"

/**
 * The report's body: the CSV's exact bytes. Its SHA-256 is the reconciliation's `sha256`, and the
 * domain reads it strictly (UTF-8, RFC 4180), so nothing may decode or re-encode it on the way.
 */
export const ReportBody = Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: REPORT_MEDIA_TYPE }))

const reconciliationId = { id: ReconciliationId }

const paging =
  "Pass the page's `nextCursor` back as `cursor` for the next page; it is null on the last page. A cursor is a " +
  "position, not an offset."

const report =
  "The report is CSV (UTF-8, a leading BOM ignored, RFC 4180 quoting, LF or CRLF, one header row; header names " +
  "trimmed and matched case-insensitively, any column order, unknown columns ignored) with the columns " +
  "`reference`, `kind` (`virtualaccount.credit`, `transfer.success`, `transfer.failed`), `amount`, `fee` and " +
  "`settled_amount` and `account_number` (required on credit lines), `currency` and `settled_at` (ISO 8601 UTC " +
  "ending in `Z`). Up to 10 MiB and 100,000 lines; the 256 KiB limit of JSON bodies does not apply."

const breakOrder =
  "Breaks are listed in the report's order (by line), then the `missing_in_report` breaks in the order the events " +
  "were received, not newest first: every break of a reconciliation comes from one import, so they have no age " +
  "between them, and the report's order is the one an operator checks them against the file in."

export class ReconciliationsApi extends HttpApiGroup.make("reconciliations")
  .add(
    HttpApiEndpoint.post("import", RECONCILIATIONS_PATH, {
      query: { date: SettlementDate },
      payload: ReportBody,
      success: [Envelope(ReconciliationView).pipe(HttpApiSchema.status(201)), Envelope(ReconciliationView)],
      error: [BadRequest, ReportRefused, PayloadTooLarge, UnsupportedMediaType]
    })
      // The handler reads the body itself, under the report's own 10 MiB limit, and the domain refuses
      // what the body guard would (NUL, invalid UTF-8) line by line, as a report problem.
      .annotate(ReadsRawBody, true)
      .annotateMerge(
        OpenApi.annotations({
          summary:
            "Import a day's settlement report (201 new, 200 the same bytes for the same date again, 400 a bad file listing its lines)",
          description:
            `\`date\` (\`YYYY-MM-DD\`, UTC) is the settlement day the report covers. ${report} Each line is matched ` +
            "with the stored event of its kind and reference: `matched`, or a break `amount_mismatch`, " +
            "`status_mismatch` or `missing_in_ledger`; applied events dated on `date` that no line names are " +
            "`missing_in_report` breaks. A header or line that breaks the format, or a (kind, reference) named twice: " +
            "400 with `errors: [{ line, column, message }]` (the header is line 1; at most 100, the message gives " +
            "the total), and nothing is stored. `date` missing or not a calendar date: 400. A body that is not " +
            "`text/csv`: 415; over 10 MiB: 413. The same bytes for the same date again answer 200 with the first " +
            "reconciliation, even at the same moment. `sha256` is the lowercase hex SHA-256 of the body."
        })
      ),
    HttpApiEndpoint.get("list", RECONCILIATIONS_PATH, {
      query: { limit: PageQuery.limit, cursor: Schema.optionalKey(ReconciliationCursor) },
      success: Envelope(ReconciliationPage),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Imported reconciliations, newest first, with their counts of lines, matches and breaks",
        description: `Newest first (by importedAt, then id). ${paging} \`breaks.open\` and \`breaks.resolved\` are as they are now; the other counts are the import's.`
      })
    ),
    HttpApiEndpoint.get("get", `${RECONCILIATIONS_PATH}/:id`, {
      params: reconciliationId,
      success: Envelope(ReconciliationView),
      error: [BadRequest, NotFound]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "One reconciliation (404 unknown id, 400 an id that is not a UUID)",
        description: "Its counts: lines, matched, and breaks open, resolved and by kind."
      })
    ),
    HttpApiEndpoint.get("breaks", `${RECONCILIATIONS_PATH}/:id/breaks`, {
      params: reconciliationId,
      query: {
        limit: PageQuery.limit,
        cursor: Schema.optionalKey(BreakCursor),
        kind: Schema.optionalKey(BreakKind),
        status: Schema.optionalKey(BreakStatus)
      },
      success: Envelope(BreakPage),
      error: [BadRequest, NotFound]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "A reconciliation's breaks, filtered by kind and status (open or resolved)",
        description:
          `${breakOrder} ${paging} A break carries the report's line (\`report\`, null for \`missing_in_report\`), ` +
          "the stored event as it was at the import (`ledger`, null for `missing_in_ledger`) and its `resolution`."
      })
    ),
    HttpApiEndpoint.post("resolve", `${RECONCILIATIONS_PATH}/:id/breaks/:breakId/resolve`, {
      params: { id: ReconciliationId, breakId: BreakId },
      payload: ResolveRequest,
      success: Envelope(BreakView),
      error: [BadRequest, NotFound, Conflict]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Resolve an open break: `accept` it with a note, or `credit` a missing deposit (409 resolved already)",
        description:
          "`note` is 1 to 500 characters; `resolution.resolvedBy` is the caller's token `sub`. `accept` moves no " +
          "money. `credit`, only for an open `missing_in_ledger` break of a `virtualaccount.credit` line, credits " +
          "the owner of the line's `account_number` with its `settled_amount` under the same ledger idempotency key " +
          "a webhook of that reference uses (`resolution.transactionId`): that webhook arriving later answers 200 " +
          "and credits nothing. The account unknown or linked in another currency, an event of the reference " +
          "received since the import, or any other break: 409, nothing changes and the break stays open. Two " +
          "resolves of one break at once resolve it once."
      })
    )
  )
  .middleware(RequireAdmin)
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Settlement reconciliation (administration)",
      description:
        "The provider's daily settlement report matched with the stored webhook events and the ledger, and the " +
        "breaks an operator resolves (role admin)"
    })
  ) {}
