import { createHash } from "node:crypto"
import { Api } from "@payments-gaming/api/Api"
import { conflict, notFound, payloadTooLarge, unsupportedMediaType } from "@payments-gaming/api/ApiErrors"
import { CurrentUser } from "@payments-gaming/api/middleware/CurrentUser"
import { REPORT_MEDIA_TYPE } from "@payments-gaming/api/Paths"
import { reportRefused } from "@payments-gaming/api/reconciliation/ReportRefused"
import { MAX_REPORT_BYTES, ReconciliationService, toPage } from "@payments-gaming/domain/reconciliation"
import { ByteSize, Effect } from "effect"
import { type HttpServerError, HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { ok, respond } from "../Respond.ts"

const DEFAULT_LIMIT = 50

/** The report's own limit: one byte more is a 413 (CONTRACT §7); every other route keeps 256 KiB. */
const REPORT_LIMIT = ByteSize.bytes(MAX_REPORT_BYTES)

const notFoundError = (error: { readonly message: string }) => Effect.fail(notFound(error.message))
const conflictError = (error: { readonly message: string }) => Effect.fail(conflict(error.message))

const tooLarge = (error: HttpServerError.HttpServerError) =>
  error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"

/**
 * The body's exact bytes, read under the report's limit (the server's MaxBodySize is read by the
 * body reader from the fiber that reads it). Over it: a 413 naming the limit. A body the client
 * stopped sending is a defect of the connection, as on every other route.
 */
const readReport = (request: HttpServerRequest.HttpServerRequest) =>
  request.arrayBuffer.pipe(
    Effect.provideService(HttpServerRequest.MaxBodySize, REPORT_LIMIT),
    Effect.map((buffer) => new Uint8Array(buffer)),
    Effect.catch((error) =>
      tooLarge(error)
        ? Effect.fail(payloadTooLarge(`Request body exceeds the report's limit of ${MAX_REPORT_BYTES} bytes (10 MiB)`))
        : Effect.die(error)
    )
  )

/** The media type without its parameters (`text/csv; charset=utf-8` is `text/csv`), in lower case. */
const mediaTypeOf = (header: string | undefined) => (header ?? "").split(";")[0]?.trim().toLowerCase() ?? ""

export const ReconciliationsHandlers = HttpApiBuilder.group(Api, "reconciliations", (handlers) =>
  Effect.gen(function* () {
    const reconciliations = yield* ReconciliationService
    return handlers
      .handleRaw(
        "import",
        Effect.fnUntraced(function* ({ request, query }) {
          if (mediaTypeOf(request.headers["content-type"]) !== REPORT_MEDIA_TYPE) {
            return yield* unsupportedMediaType(`Content-Type must be ${REPORT_MEDIA_TYPE}`)
          }
          const bytes = yield* readReport(request)
          const sha256 = createHash("sha256").update(bytes).digest("hex")
          const { created, reconciliation } = yield* reconciliations
            .import({ date: query.date, bytes, sha256 })
            .pipe(Effect.catchTag("InvalidReport", (error) => Effect.fail(reportRefused(error.message, error.errors))))
          const envelope = yield* ok(
            created ? "Reconciliation imported" : "Reconciliation already imported",
            reconciliation,
            created ? 201 : 200
          )
          return respond(envelope)
        })
      )
      .handle("list", ({ query }) =>
        reconciliations
          .list({ after: query.cursor, limit: query.limit ?? DEFAULT_LIMIT })
          .pipe(Effect.flatMap((page) => ok("Reconciliations fetched", toPage(page))))
      )
      .handle("get", ({ params }) =>
        reconciliations.get(params.id).pipe(
          Effect.catchTag("ReconciliationNotFound", notFoundError),
          Effect.flatMap((reconciliation) => ok("Reconciliation fetched", reconciliation))
        )
      )
      .handle("breaks", ({ params, query }) =>
        reconciliations
          .breaks(params.id, {
            kind: query.kind,
            status: query.status,
            after: query.cursor,
            limit: query.limit ?? DEFAULT_LIMIT
          })
          .pipe(
            Effect.catchTag("ReconciliationNotFound", notFoundError),
            Effect.flatMap((page) => ok("Breaks fetched", toPage(page)))
          )
      )
      .handle(
        "resolve",
        Effect.fnUntraced(function* ({ params, payload }) {
          const user = yield* CurrentUser
          const resolved = yield* reconciliations
            .resolve({
              reconciliationId: params.id,
              breakId: params.breakId,
              action: payload.action,
              note: payload.note,
              by: user.userId
            })
            .pipe(
              Effect.catchTags({
                BreakNotFound: notFoundError,
                BreakAlreadyResolved: conflictError,
                CreditRefused: conflictError
              })
            )
          return yield* ok(`Break resolved (${payload.action})`, resolved)
        })
      )
  })
)
