import { createHash } from "node:crypto"
import { userInfo } from "node:os"
import { ReportRefused } from "@payments-gaming/api/reconciliation/ReportRefused"
import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import {
  BreakCursor,
  BreakKind,
  BreakPage,
  type BreakStatus,
  type BreakView,
  MAX_REPORT_BYTES,
  ReconciliationCursor,
  ReconciliationId,
  ReconciliationPage,
  type ReconciliationPosition,
  ReconciliationService,
  type ReconciliationView,
  ResolutionNote,
  type ResolveAction,
  SettlementDate,
  toPage
} from "@payments-gaming/domain/reconciliation"
import { Console, Data, Effect, FileSystem, Option, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Backend from "./Backend.ts"
import { checkPageLimit, decodeFlag } from "./FlagValue.ts"
import { UsageError } from "./Runtime.ts"
import * as ServiceClient from "./ServiceClient.ts"
import { printError, printList, printText } from "./TerminalText.ts"

/** The command ran but did not do what was asked: a refused report, an unknown id, a refused resolve. */
export class ReconcileCommandFailed extends Data.TaggedError("ReconcileCommandFailed")<{ readonly message: string }> {}

/** One problem of a refused report, as the service and the domain list it. */
interface Problem {
  readonly line: number
  readonly column: string | null
  readonly message: string
}

/** What an import came to: the reconciliation (new or the one of the same bytes), or the report's problems. */
type Imported =
  | { readonly _tag: "Imported"; readonly created: boolean; readonly reconciliation: ReconciliationView }
  | { readonly _tag: "Refused"; readonly message: string; readonly errors: ReadonlyArray<Problem> }

const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))

/**
 * Who resolves, as the service records it (`resolvedBy`): the operator's login on this machine, on
 * the database directly and as the `sub` of the token the CLI mints for the service alike.
 */
const operator = (): string => {
  try {
    const name = userInfo().username.trim()
    return name === "" ? "cli" : `cli:${name}`.slice(0, 128)
  } catch {
    return "cli"
  }
}

/** The reconciliation use cases on the database itself, loaded only when a command runs (not for --help). */
const onDatabase = <A, E>(use: (service: ReconciliationService["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const Commands = yield* Effect.promise(() => import("@payments-gaming/composition/Commands"))
    return yield* Effect.flatMap(Effect.service(ReconciliationService), use).pipe(
      Effect.provide(Commands.Reconciliation)
    )
  })

/** An id argument (a reconciliation's or a break's: both UUIDs) decoded before anything is opened: a malformed one is bad usage. */
const decodeId = (value: string, name: string) => decodeFlag(ReconciliationId, value, name, "a UUID")

const notFound = (what: string) => new ReconcileCommandFailed({ message: `no ${what}` })

/** A 404 from the service, as the same sentence the database path says. */
const orNotFound =
  (what: string) =>
  <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.catchIf(
      effect,
      (error) => error instanceof ServiceClient.ServiceCallFailed && error.status === 404,
      () => Effect.fail(notFound(what))
    )

const breaksText = (reconciliation: ReconciliationView) => {
  const { byKind } = reconciliation.breaks
  return Object.entries(byKind)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(", ")
}

const printReconciliation = (reconciliation: ReconciliationView) =>
  printText(
    [
      `id\t${reconciliation.id}`,
      `date\t${reconciliation.date}`,
      `importedAt\t${reconciliation.importedAt}`,
      `sha256\t${reconciliation.sha256}`,
      `lines\t${reconciliation.lines}`,
      `matched\t${reconciliation.matched}`,
      `open\t${reconciliation.breaks.open}`,
      `resolved\t${reconciliation.breaks.resolved}`,
      `byKind\t${breaksText(reconciliation)}`
    ].join("\n")
  )

// ---- import -------------------------------------------------------------------------------------

const readReport = (path: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    // Refused before it is read: the service would answer 413, the domain refuses it all the same.
    const size = Number((yield* fs.stat(path)).size)
    if (size > MAX_REPORT_BYTES) {
      return yield* new ReconcileCommandFailed({
        message: `${path} has ${size} bytes: a report may have at most ${MAX_REPORT_BYTES} (10 MiB); nothing was stored`
      })
    }
    return yield* fs.readFile(path)
  })

const importDirectly = (date: string, bytes: Uint8Array) =>
  onDatabase((service) =>
    service.import({ date, bytes, sha256: createHash("sha256").update(bytes).digest("hex") }).pipe(
      Effect.map((result): Imported => ({ _tag: "Imported", ...result })),
      Effect.catchTag("InvalidReport", (error) =>
        Effect.succeed<Imported>({ _tag: "Refused", message: error.message, errors: error.errors })
      )
    )
  )

const importThroughService = (baseUrl: string, date: string, bytes: Uint8Array) =>
  ServiceClient.call(baseUrl, (api) =>
    api.reconciliations.import({ query: { date }, payload: bytes }).pipe(
      Effect.map(
        (answer): Imported => ({ _tag: "Imported", created: answer.status === 201, reconciliation: answer.data })
      ),
      // The report's problems are the command's answer, not a failure of the call.
      Effect.catchIf(
        (error): error is ReportRefused => error instanceof ReportRefused,
        (refused) => Effect.succeed<Imported>({ _tag: "Refused", message: refused.message, errors: refused.errors })
      )
    )
  )

const importCommand = Command.make(
  "import",
  {
    file: Argument.File("file", { mustExist: true }).pipe(
      Argument.withDescription("The provider's settlement report: CSV, at most 10 MiB and 100,000 lines")
    ),
    date: Flag.String("date").pipe(Flag.withDescription("The settlement day (UTC) the report covers, YYYY-MM-DD")),
    json
  },
  ({ file, date, json }) =>
    Effect.gen(function* () {
      const day = yield* decodeFlag(SettlementDate, date, "--date", "a calendar date such as 2026-11-21")
      const bytes = yield* readReport(file)
      const backend = yield* Backend.resolve
      const result =
        backend._tag === "Service"
          ? yield* importThroughService(backend.url, day, bytes)
          : yield* importDirectly(day, bytes)
      if (result._tag === "Refused") {
        if (json) {
          yield* Console.log(JSON.stringify({ refused: true, message: result.message, errors: result.errors }))
        } else {
          yield* printList({
            columns: ["line", "column", "message"],
            rows: result.errors.map((problem) => [String(problem.line), problem.column ?? "-", problem.message]),
            noun: "problems listed"
          })
        }
        return yield* new ReconcileCommandFailed({ message: result.message })
      }
      if (json) {
        yield* Console.log(JSON.stringify({ created: result.created, reconciliation: result.reconciliation }))
      } else {
        yield* printReconciliation(result.reconciliation)
        if (!result.created) {
          yield* printError(`These bytes were imported for ${day} already: this is that reconciliation`)
        }
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Import a day's settlement report and match it with the stored webhook events and the ledger. The same " +
      "file for the same day again answers the first reconciliation. A bad file lists its problems (line, " +
      "column, message), stores nothing and exits 1."
  ),
  Command.withExamples([
    {
      command: "payments-gaming reconcile import settlement-2026-11-21.csv --date 2026-11-21",
      description: "Import the report of 21 November"
    }
  ])
)

// ---- list ---------------------------------------------------------------------------------------

const limitFlag = Flag.Int("limit").pipe(Flag.withDefault(50), Flag.withDescription("How many, 1 to 200"))
const cursorFlag = Flag.String("cursor").pipe(
  Flag.optional,
  Flag.withDescription("Continue after a previous page: its nextCursor (printed with --json)")
)

/** `--cursor` decoded by the schema that encodes `nextCursor`: anything else is bad usage. */
const decodeCursor = <S extends Schema.Decoder<unknown>>(schema: S, cursor: Option.Option<string>) =>
  Option.isNone(cursor)
    ? Effect.undefined
    : Schema.decodeUnknownEffect(schema)(cursor.value).pipe(
        Effect.mapError(() => new UsageError({ message: "--cursor: not a nextCursor from a previous page" }))
      )

const listCommand = Command.make("list", { limit: limitFlag, cursor: cursorFlag, json }, ({ limit, cursor, json }) =>
  Effect.gen(function* () {
    yield* checkPageLimit(limit)
    const after: ReconciliationPosition | undefined = yield* decodeCursor(ReconciliationCursor, cursor)
    const backend = yield* Backend.resolve
    const page =
      backend._tag === "Service"
        ? yield* ServiceClient.call(backend.url, (api) =>
            api.reconciliations.list({
              query: { limit, ...(after === undefined ? {} : { cursor: after }) }
            })
          ).pipe(Effect.map((answer) => answer.data))
        : yield* onDatabase((service) => service.list({ after, limit }).pipe(Effect.map(toPage)))
    // The page as the API answers it: its nextCursor is the opaque text --cursor takes back.
    const encoded = Schema.encodeSync(ReconciliationPage)(page)
    if (json) {
      yield* Console.log(JSON.stringify(encoded))
    } else {
      yield* printList({
        columns: ["id", "date", "importedAt", "lines", "matched", "open", "resolved"],
        rows: page.items.map((item) => [
          item.id,
          item.date,
          item.importedAt,
          String(item.lines),
          String(item.matched),
          String(item.breaks.open),
          String(item.breaks.resolved)
        ]),
        noun: "reconciliations",
        next: encoded.nextCursor === null ? undefined : `--cursor ${encoded.nextCursor}`
      })
    }
  }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "List imported reconciliations, newest first: one tab-separated line each (id, date, importedAt, lines, " +
      "matched, open, resolved), or --json with the page's nextCursor"
  ),
  Command.withExamples([{ command: "payments-gaming reconcile list", description: "The latest reconciliations" }])
)

// ---- show ---------------------------------------------------------------------------------------

const reconciliationIdArgument = Argument.String("id").pipe(Argument.withDescription("The reconciliation's id"))

const showCommand = Command.make("show", { id: reconciliationIdArgument, json }, ({ id, json }) =>
  Effect.gen(function* () {
    const reconciliationId = yield* decodeId(id, "id")
    const backend = yield* Backend.resolve
    const reconciliation =
      backend._tag === "Service"
        ? yield* ServiceClient.call(backend.url, (api) =>
            api.reconciliations.get({ params: { id: reconciliationId } })
          ).pipe(
            Effect.map((answer) => answer.data),
            orNotFound(`reconciliation ${reconciliationId}`)
          )
        : yield* onDatabase((service) =>
            service
              .get(reconciliationId)
              .pipe(Effect.catchTag("ReconciliationNotFound", () => Effect.fail(notFound(`reconciliation ${id}`))))
          )
    yield* json ? Console.log(JSON.stringify(reconciliation)) : printReconciliation(reconciliation)
  }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription("Show one reconciliation: its day, file digest, lines, matches and breaks by kind"),
  Command.withExamples([
    {
      command: "payments-gaming reconcile show 36359400-409d-492e-970f-d649e2ee3c20",
      description: "One reconciliation"
    }
  ])
)

// ---- breaks -------------------------------------------------------------------------------------

const amountOf = (side: { readonly amount: string | null; readonly currency: string | null } | null) =>
  side === null || side.amount === null ? "-" : `${side.amount} ${side.currency ?? ""}`.trim()

const breakRow = (item: BreakView) => [
  item.id,
  item.kind,
  item.eventKind,
  item.reference,
  item.status,
  item.report === null ? "-" : String(item.report.line),
  amountOf(item.report),
  amountOf(item.ledger),
  item.resolution === null ? "-" : `${item.resolution.action} by ${item.resolution.resolvedBy}`
]

const BREAK_COLUMNS = ["id", "kind", "eventKind", "reference", "status", "line", "report", "ledger", "resolution"]

const breaksCommand = Command.make(
  "breaks",
  {
    id: reconciliationIdArgument,
    kind: Flag.Literals("kind", BreakKind.literals).pipe(
      Flag.optional,
      Flag.withDescription("Only breaks of this kind")
    ),
    status: Flag.Literals("status", ["open", "resolved"]).pipe(
      Flag.optional,
      Flag.withDescription("Only open or only resolved breaks")
    ),
    limit: limitFlag,
    cursor: cursorFlag,
    json
  },
  ({ id, kind, status, limit, cursor, json }) =>
    Effect.gen(function* () {
      const reconciliationId = yield* decodeId(id, "id")
      yield* checkPageLimit(limit)
      const after: number | undefined = yield* decodeCursor(BreakCursor, cursor)
      const filter = {
        kind: Option.getOrUndefined(kind),
        status: Option.getOrUndefined(status) as BreakStatus | undefined
      }
      const backend = yield* Backend.resolve
      const page =
        backend._tag === "Service"
          ? yield* ServiceClient.call(backend.url, (api) =>
              api.reconciliations.breaks({
                params: { id: reconciliationId },
                query: {
                  limit,
                  ...(filter.kind === undefined ? {} : { kind: filter.kind }),
                  ...(filter.status === undefined ? {} : { status: filter.status }),
                  ...(after === undefined ? {} : { cursor: after })
                }
              })
            ).pipe(
              Effect.map((answer) => answer.data),
              orNotFound(`reconciliation ${reconciliationId}`)
            )
          : yield* onDatabase((service) =>
              service.breaks(reconciliationId, { ...filter, after, limit }).pipe(
                Effect.map(toPage),
                Effect.catchTag("ReconciliationNotFound", () => Effect.fail(notFound(`reconciliation ${id}`)))
              )
            )
      const encoded = Schema.encodeSync(BreakPage)(page)
      if (json) {
        yield* Console.log(JSON.stringify(encoded))
      } else {
        yield* printList({
          columns: BREAK_COLUMNS,
          rows: page.items.map(breakRow),
          noun: [filter.status, filter.kind, "breaks"].filter((word) => word !== undefined).join(" "),
          next: encoded.nextCursor === null ? undefined : `--cursor ${encoded.nextCursor}`
        })
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "List a reconciliation's breaks in the report's order (missing_in_report last): one tab-separated line " +
      "each (id, kind, eventKind, reference, status, line, report, ledger, resolution), or --json"
  ),
  Command.withExamples([
    {
      command:
        "payments-gaming reconcile breaks 36359400-409d-492e-970f-d649e2ee3c20 --kind missing_in_ledger --status open",
      description: "Deposits the ledger never received, still open"
    }
  ])
)

// ---- resolve ------------------------------------------------------------------------------------

const resolveCommand = Command.make(
  "resolve",
  {
    id: reconciliationIdArgument,
    breakId: Argument.String("breakId").pipe(Argument.withDescription("The break's id")),
    action: Flag.Literals("action", ["credit", "accept"]).pipe(
      Flag.withDescription(
        "credit: credit a missing deposit to its account's owner (exactly once, even if its webhook comes later); accept: record the note, move no money"
      )
    ),
    note: Flag.String("note").pipe(Flag.withDescription("Why, for the record: 1 to 500 characters")),
    json
  },
  ({ id, breakId, action, note, json }) =>
    Effect.gen(function* () {
      const reconciliationId = yield* decodeId(id, "id")
      const breakUuid = yield* decodeId(breakId, "breakId")
      const text = yield* decodeFlag(ResolutionNote, note, "--note", "1 to 500 characters")
      const input = {
        reconciliationId,
        breakId: breakUuid,
        action: action as ResolveAction,
        note: text,
        by: operator()
      }
      const backend = yield* Backend.resolve
      const resolved =
        backend._tag === "Service"
          ? yield* ServiceClient.call(
              backend.url,
              (api) =>
                api.reconciliations.resolve({
                  params: { id: input.reconciliationId, breakId: input.breakId },
                  payload: { action: input.action, note: input.note }
                }),
              { sub: input.by }
            ).pipe(
              Effect.map((answer) => answer.data),
              orNotFound(`break ${breakUuid} in reconciliation ${reconciliationId}`)
            )
          : yield* onDatabase((service) =>
              service.resolve(input).pipe(
                Effect.catchTags({
                  BreakNotFound: () =>
                    Effect.fail(notFound(`break ${breakUuid} in reconciliation ${reconciliationId}`)),
                  BreakAlreadyResolved: (error) => Effect.fail(new ReconcileCommandFailed({ message: error.message })),
                  CreditRefused: (error) => Effect.fail(new ReconcileCommandFailed({ message: error.message }))
                })
              )
            )
      if (json) {
        yield* Console.log(JSON.stringify(resolved))
      } else {
        yield* printList({ columns: BREAK_COLUMNS, rows: [breakRow(resolved)], noun: "breaks" })
        const transaction = resolved.resolution?.transactionId
        if (transaction !== null && transaction !== undefined)
          yield* printError(`Credited: ledger transaction ${transaction}`)
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Resolve an open break: accept it with a note, or credit a missing deposit (an open missing_in_ledger " +
      "break of a credit line) to the owner of its account. A break resolved already, or a credit refused " +
      "(account unknown or in another currency, its webhook arrived since the import), exits 1 and changes nothing."
  ),
  Command.withExamples([
    {
      command:
        'payments-gaming reconcile resolve 36359400-409d-492e-970f-d649e2ee3c20 9c013b3f-4bc5-4050-8113-b14177b9c4bd --action credit --note "lost in the outage of 21 Nov"',
      description: "Credit a deposit the webhook never brought"
    }
  ])
)

export const reconcile = Command.make("reconcile").pipe(
  Command.withDescription(
    "Settlement reconciliation: import the provider's daily report, list reconciliations and their breaks, resolve them"
  ),
  Command.withSubcommands([importCommand, listCommand, showCommand, breaksCommand, resolveCommand])
)
