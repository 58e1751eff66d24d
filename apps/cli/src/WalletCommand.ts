import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import { UserId } from "@payments-gaming/domain/auth"
import {
  Instant,
  StatementCursor,
  type StatementItem,
  type StatementPage,
  type StatementQuery,
  StatementService
} from "@payments-gaming/domain/ledger"
import { Unit } from "@payments-gaming/domain/money"
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Backend from "./Backend.ts"
import { decodeFlag, decodeOptionalFlag } from "./FlagValue.ts"
import { UsageError } from "./Runtime.ts"
import * as ServiceClient from "./ServiceClient.ts"
import { field, printError, printText } from "./TerminalText.ts"

/** The largest page the service gives; the command follows the cursor page by page. */
const PAGE = 200

type Filters = Omit<StatementQuery, "after" | "limit">

const pageDirectly = (userId: UserId, query: StatementQuery) =>
  Effect.gen(function* () {
    // Loaded only when the command runs: --help and the other commands never pay for the database.
    const Commands = yield* Effect.promise(() => import("@payments-gaming/composition/Commands"))
    return yield* StatementService.use((statements) => statements.statement(userId, query)).pipe(
      Effect.provide(Commands.Banking)
    )
  })

/** The same page through the service that owns the embedded database (GET /v1/admin/users/{u}/transactions). */
const pageThroughService = (baseUrl: string, userId: UserId, query: StatementQuery) =>
  ServiceClient.call(baseUrl, (api) =>
    api.bankingAdmin.userStatement({
      params: { userId },
      query: {
        limit: query.limit,
        ...(query.currency === undefined ? {} : { currency: query.currency }),
        ...(query.from === undefined ? {} : { from: query.from }),
        ...(query.to === undefined ? {} : { to: query.to }),
        ...(query.after === undefined ? {} : { cursor: query.after })
      }
    })
  ).pipe(Effect.map((answer) => answer.data))

/**
 * Up to `max` entries (all when undefined) from `after` on, page by page, and where the next would
 * start (null at the end of the statement).
 */
const collect = <E, R>(
  page: (query: StatementQuery) => Effect.Effect<StatementPage, E, R>,
  filters: Filters,
  after: string | undefined,
  max: number | undefined
) =>
  Effect.gen(function* () {
    const items: Array<StatementItem> = []
    let position = after
    while (max === undefined || items.length < max) {
      const limit = max === undefined ? PAGE : Math.min(PAGE, max - items.length)
      const found = yield* page({ ...filters, after: position, limit })
      items.push(...found.items)
      if (found.nextCursor === null) return { items, nextCursor: null }
      position = found.nextCursor
    }
    return { items, nextCursor: position ?? null }
  })

const COLUMNS = ["id", "occurredAt", "kind", "direction", "amount", "balanceAfter", "currency", "reference"] as const

const fieldsOf = (item: StatementItem) => COLUMNS.map((column) => field(item[column]))

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A field a
 * spreadsheet would run as a formula (a provider's reference starting with =, +, -, @) gets a
 * leading apostrophe, so opening an export never executes what a third party wrote.
 */
const csvField = (value: string) => {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

const csv = (items: ReadonlyArray<StatementItem>) =>
  [COLUMNS.join(","), ...items.map((item) => fieldsOf(item).map(csvField).join(","))].join("\n")

/** Columns padded to their widest value; amounts right-aligned so the decimal points line up. */
const table = (items: ReadonlyArray<StatementItem>) => {
  const rows = [[...COLUMNS], ...items.map(fieldsOf)]
  const widths = COLUMNS.map((_, column) => Math.max(...rows.map((row) => (row[column] as string).length)))
  const right = new Set([4, 5])
  return rows
    .map((row) =>
      row
        .map((value, column) =>
          right.has(column) ? value.padStart(widths[column] as number) : value.padEnd(widths[column] as number)
        )
        .join("  ")
        .trimEnd()
    )
    .join("\n")
}

const statement = Command.make(
  "statement",
  {
    user: Flag.String("user").pipe(Flag.withDescription("The user whose statement to print")),
    currency: Flag.String("currency").pipe(Flag.optional, Flag.withDescription("Only this currency (NGN…, or COIN)")),
    from: Flag.String("from").pipe(Flag.optional, Flag.withDescription("Only postings at or after this ISO instant")),
    to: Flag.String("to").pipe(Flag.optional, Flag.withDescription("Only postings before this ISO instant")),
    limit: Flag.Int("limit").pipe(
      Flag.optional,
      Flag.withDescription("At most this many entries (default: the whole statement)")
    ),
    cursor: Flag.String("cursor").pipe(
      Flag.optional,
      Flag.withDescription("Continue where a previous --json answer's nextCursor points")
    ),
    csv: Flag.Boolean("csv").pipe(Flag.withDefault(false), Flag.withDescription("Print CSV with a header line")),
    json: Flag.Boolean("json").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Print JSON: { items, nextCursor } (null at the end)")
    )
  },
  (flags) =>
    Effect.gen(function* () {
      const userId = yield* decodeFlag(UserId, flags.user, "--user", "a user id of 1 to 128 characters")
      const currency = yield* decodeOptionalFlag(
        Unit,
        flags.currency,
        "--currency",
        "an ISO 4217 code in capitals (NGN) or COIN"
      )
      const from = yield* decodeOptionalFlag(
        Instant,
        flags.from,
        "--from",
        "an ISO 8601 instant with an offset, e.g. 2026-11-21T00:00:00Z"
      )
      const to = yield* decodeOptionalFlag(
        Instant,
        flags.to,
        "--to",
        "an ISO 8601 instant with an offset, e.g. 2026-11-22T00:00:00Z"
      )
      const after = yield* decodeOptionalFlag(
        StatementCursor,
        flags.cursor,
        "--cursor",
        "the nextCursor of a previous --json answer"
      )
      const max = Option.getOrUndefined(flags.limit)
      if (max !== undefined && max < 1) return yield* new UsageError({ message: `--limit ${max}: must be at least 1` })
      if (from !== undefined && to !== undefined && from.getTime() >= to.getTime()) {
        return yield* new UsageError({ message: "--from must be before --to" })
      }
      if (flags.csv && flags.json) return yield* new UsageError({ message: "--csv and --json: choose one" })
      // Input is checked before the database is opened.
      const backend = yield* Backend.resolve
      // Either way a failure ends the command (exit 1; a refused flag, exit 2).
      const page = (query: StatementQuery): Effect.Effect<StatementPage, unknown> =>
        backend._tag === "Service"
          ? pageThroughService(backend.url, userId, query)
          : pageDirectly(userId, query).pipe(
              Effect.catchTags({
                InvalidStatementPeriod: (error) => Effect.fail(new UsageError({ message: error.message })),
                InvalidStatementCursor: () =>
                  Effect.fail(new UsageError({ message: "--cursor: not a cursor of this user's statement" }))
              })
            )
      const found = yield* collect(page, { currency, from, to }, after, max)
      if (flags.json) {
        yield* Console.log(
          JSON.stringify({
            items: found.items,
            nextCursor: found.nextCursor
          })
        )
      } else {
        // CSV keeps its header when empty, for the program that reads it; a table says so instead.
        if (flags.csv) yield* printText(csv(found.items))
        else if (found.items.length > 0) yield* printText(table(found.items))
        if (found.items.length === 0) yield* printError("No postings")
        if (found.nextCursor !== null) yield* printError(`More postings: run again with --cursor ${found.nextCursor}`)
      }
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Print a user's wallet statement, newest first, as GET /v1/wallet/transactions shows it to them: one line " +
      "per posting (id, occurredAt, kind, direction, amount, balanceAfter, currency, reference), as a table, " +
      "--csv or --json. Fields a spreadsheet would run as a formula are prefixed with an apostrophe in CSV."
  ),
  Command.withExamples([
    { command: "payments-gaming wallet statement --user user-1", description: "The whole statement as a table" },
    {
      command: "payments-gaming wallet statement --user user-1 --currency NGN --from 2026-11-01T00:00:00Z --csv",
      description: "November's naira postings onwards, as CSV"
    }
  ])
)

export const wallet = Command.make("wallet").pipe(
  Command.withDescription("Users' wallets: statements"),
  Command.withSubcommands([statement])
)
