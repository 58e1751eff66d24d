import { CommandEnvironment } from "@payments-gaming/composition/CommandEnvironment"
import { type SealSegment, SealService, type Verification } from "@payments-gaming/domain/ledger"
import { Console, Data, Effect, Option, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import * as Backend from "./Backend.ts"
import { UsageError } from "./Runtime.ts"
import { printText } from "./TerminalText.ts"

/** The chain does not hold, or the command cannot read it. */
export class LedgerCommandFailed extends Data.TaggedError("LedgerCommandFailed")<{ readonly message: string }> {}

const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON"))

/**
 * The seals' use cases on the database itself, loaded only when a command runs. Verify and export
 * read the whole sealed history, which the running service's API does not serve: on an embedded
 * DATA_DIR owned by a service they refuse (README, "Command line"; docs/ledger-seals.md).
 */
const onDatabase = <A, E>(use: (service: SealService["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const backend = yield* Backend.resolve
    if (backend._tag === "Service") {
      return yield* new LedgerCommandFailed({
        message:
          `the ledger's history is read from the database itself, and ${backend.url} (pid ${backend.owner.pid}) ` +
          "holds the embedded one: stop that service first, or run with DATABASE_URL"
      })
    }
    const Commands = yield* Effect.promise(() => import("@payments-gaming/composition/Commands"))
    return yield* Effect.flatMap(Effect.service(SealService), use).pipe(Effect.provide(Commands.Seals))
  })

const HASH = /^[0-9a-fA-F]{64}$/

const describe = (result: Verification): string => {
  switch (result._tag) {
    case "Verified":
      return `verified ${result.transactions} transactions in ${result.seals} seals, head ${result.head}`
    case "HeadNotFound":
      return `head ${result.head} is not the hash of any seal of the chain (${result.transactions} transactions in ${result.seals} seals verified)`
    case "Broken":
      return `seal ${result.sequence} differs: ${result.message}`
  }
}

/** The verification as `--json` prints it. */
const jsonOf = (result: Verification) =>
  result._tag === "Broken"
    ? {
        verified: false,
        seal: result.sequence,
        transaction: result.transactionId === undefined ? null : result.transactionId.toString(),
        message: result.message
      }
    : result._tag === "HeadNotFound"
      ? {
          verified: false,
          head: result.head,
          transactions: result.transactions,
          seals: result.seals,
          message: describe(result)
        }
      : { verified: true, transactions: result.transactions, seals: result.seals, head: result.head }

const verify = Command.make(
  "verify",
  {
    head: Flag.String("head").pipe(
      Flag.optional,
      Flag.withDescription("A seal hash published earlier: exit 1 unless it is still the hash of a seal of the chain")
    ),
    json
  },
  ({ head, json }) =>
    Effect.gen(function* () {
      if (Option.isSome(head) && !HASH.test(head.value)) {
        return yield* new UsageError({ message: `--head ${head.value}: a SHA-256 hash, 64 hex digits` })
      }
      const expected = Option.isSome(head) ? head.value.toLowerCase() : undefined
      const result = yield* onDatabase((seals) => seals.verify({ head: expected }))
      // The text quotes rows of the database: printed without terminal escapes, as every text answer.
      yield* json ? Console.log(JSON.stringify(jsonOf(result))) : printText(describe(result))
      if (result._tag !== "Verified") process.exitCode = 1
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Recompute every seal of the ledger's hash chain from the ledger's rows: exit 0 when all hold, else 1 naming the first seal (and transaction) that differs"
  ),
  Command.withExamples([
    { command: "payments-gaming ledger verify", description: "Check the whole history" },
    {
      command: "payments-gaming ledger verify --head 5d41…",
      description: "Also check that a head published earlier is still part of the chain"
    }
  ])
)

/** Writes to stdout, waiting while its buffer is full: an export of millions of lines stays in flat memory. */
const write = (text: string) =>
  Effect.callback<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

/** The JSON lines of one seal: one per transaction, with the seal it is in (docs/ledger-seals.md). */
export const exportLines = (segment: SealSegment): string => {
  let out = ""
  for (const member of segment.members) {
    const transaction = member.transaction
    if (transaction === undefined) continue
    out += `${JSON.stringify({
      seal: segment.sequence,
      sealHash: segment.stored?.hash ?? null,
      previousHash: segment.stored?.previousHash ?? null,
      id: transaction.id.toString(),
      key: transaction.key,
      kind: transaction.kind,
      createdAt: transaction.createdAt,
      postings: transaction.postings.map((posting) => ({
        id: posting.id.toString(),
        account: posting.account,
        currency: posting.currency,
        amount: posting.amountMinor.toString()
      }))
    })}\n`
  }
  return out
}

const sequenceFlag = (name: string, description: string) =>
  Flag.Int(name).pipe(Flag.optional, Flag.withDescription(description))

const exportCommand = Command.make(
  "export",
  {
    from: sequenceFlag("from", "The first seal to export (default 1)"),
    to: sequenceFlag("to", "The last seal to export (default the latest)")
  },
  ({ from, to }) =>
    Effect.gen(function* () {
      const range = { from: Option.getOrUndefined(from), to: Option.getOrUndefined(to) }
      for (const [flag, value] of [
        ["--from", range.from],
        ["--to", range.to]
      ] as const) {
        if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
          return yield* new UsageError({ message: `${flag} ${value}: a seal sequence, 1 or more` })
        }
      }
      if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
        return yield* new UsageError({ message: `--from ${range.from} is after --to ${range.to}` })
      }
      // A reader that stops early (`| head`) closes the pipe: that ends the export, not as a crash.
      process.stdout.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code === "EPIPE") process.exit(0)
        throw error
      })
      yield* onDatabase((seals) =>
        Stream.runForEach(seals.history(range), (segment) => {
          const lines = exportLines(segment)
          return lines === "" ? Effect.void : write(lines)
        })
      )
    }).pipe(Effect.provide(CommandEnvironment))
).pipe(
  Command.withDescription(
    "Print the sealed transactions as JSON lines, with their postings and seal: enough to recompute the chain without the service (docs/ledger-seals.md)"
  ),
  Command.withExamples([
    { command: "payments-gaming ledger export > ledger.jsonl", description: "The whole sealed history" },
    { command: "payments-gaming ledger export --from 120 --to 130", description: "Seals 120 to 130" }
  ])
)

export const ledger = Command.make("ledger").pipe(
  Command.withDescription("The sealed ledger: verify its hash chain, export its sealed history"),
  Command.withSubcommands([verify, exportCommand])
)
