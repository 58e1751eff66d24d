import { creditAccountNumber, readWebhook } from "@payments-gaming/domain/banking"
import { isCurrency, Money } from "@payments-gaming/domain/money"
import { isApplied } from "@payments-gaming/domain/reconciliation"
import { BigDecimal, Effect, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"

/**
 * How a generated report departs from the ledger, each a probability in [0, 1]:
 * - `missingInReport`: an applied event of the day is left out of the report;
 * - `amountMismatch`: an applied event's line says one more unit of its currency;
 * - `statusMismatch`: an event of the day that was not applied (unmatched, rejected) gets a line;
 * - `missingInLedger`: after each event's turn, a line of a reference no event has is added.
 * An applied event that is neither left out nor changed gets its exact line: `matched`.
 */
export interface BreakShares {
  readonly missingInReport: number
  readonly amountMismatch: number
  readonly statusMismatch: number
  readonly missingInLedger: number
}

/** What importing the generated report must find: the reconciliation's counts. */
export interface ExpectedCounts {
  readonly lines: number
  readonly matched: number
  readonly byKind: {
    readonly missing_in_ledger: number
    readonly missing_in_report: number
    readonly amount_mismatch: number
    readonly status_mismatch: number
  }
}

const HEADER = "reference,kind,amount,fee,settled_amount,currency,account_number,settled_at"

/** A deterministic generator (mulberry32): the same seed gives the same report. */
const random = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)

const EventRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  reference: Schema.String,
  outcome: Schema.String,
  raw_body: Schema.Uint8Array,
  received_at: Schema.Date
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(EventRow))

/**
 * Writes the provider's report of `date` from the webhook events of the database, a batch of
 * lines at a time through `write` (a file, for the benchmark; an array, for a test), reading the
 * events in pages of `pageSize` so memory stays flat whatever the database holds. Events are read
 * from a day before `date` on, and kept when their `data.date` falls on it (as the import does).
 * Returns the counts an import of the report must find.
 */
export const generateReport = (options: {
  readonly date: string
  readonly shares: BreakShares
  readonly seed?: number
  readonly pageSize?: number
  readonly write: (chunk: string) => void
}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const draw = random(options.seed ?? 32)
    const pageSize = options.pageSize ?? 1000
    const from = new Date(Date.parse(`${options.date}T00:00:00Z`) - 86_400_000)
    const counts = { missing_in_ledger: 0, missing_in_report: 0, amount_mismatch: 0, status_mismatch: 0 }
    let lines = 0
    let matched = 0
    let fabricated = 0
    options.write(`${HEADER}\n`)
    let after: { readonly at: Date; readonly id: string } | undefined
    for (;;) {
      const rows = yield* (
        after === undefined
          ? sql`SELECT id, kind, reference, outcome, raw_body, received_at FROM webhook_events
            WHERE received_at >= ${from} AND kind <> 'ignored' AND outcome <> 'conflict'
            ORDER BY received_at, id LIMIT ${pageSize}`
          : sql`SELECT id, kind, reference, outcome, raw_body, received_at FROM webhook_events
            WHERE received_at >= ${from} AND kind <> 'ignored' AND outcome <> 'conflict'
              AND (received_at, id) > (${after.at}, ${after.id}::uuid)
            ORDER BY received_at, id LIMIT ${pageSize}`
      ).pipe(Effect.flatMap(decodeRows))
      const chunk: Array<string> = []
      for (const row of rows) {
        const read = readWebhook(row.raw_body)
        if (Result.isFailure(read) || read.success.kind === "ignored") continue
        const event = read.success
        const data = event.payload.data
        const at = new Date(data.date)
        if (Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== options.date) continue
        const currency = data.currency
        if (!isCurrency(currency)) continue
        const credit = event.kind === "virtualaccount.credit"
        const fee = data.fee ?? BigDecimal.fromNumberUnsafe(0)
        const amount = (value: BigDecimal.BigDecimal) => Money.format(Money.make(currency, value))
        const lineOf = (extra: BigDecimal.BigDecimal) =>
          [
            field(event.reference),
            event.kind,
            amount(BigDecimal.sum(data.amount, extra)),
            credit ? amount(fee) : "",
            credit ? amount(BigDecimal.sum(BigDecimal.subtract(data.amount, fee), extra)) : "",
            currency,
            event.kind === "virtualaccount.credit" ? field(creditAccountNumber(event.payload)) : "",
            at.toISOString()
          ].join(",")
        const chance = draw()
        if (isApplied(row.outcome as never)) {
          if (chance < options.shares.missingInReport) counts.missing_in_report++
          else if (chance < options.shares.missingInReport + options.shares.amountMismatch) {
            chunk.push(lineOf(BigDecimal.fromNumberUnsafe(1)))
            counts.amount_mismatch++
          } else {
            chunk.push(lineOf(BigDecimal.fromNumberUnsafe(0)))
            matched++
          }
        } else if (chance < options.shares.statusMismatch) {
          // Only a line the import can read: a positive amount whose settled amount is the amount less the fee.
          if (!BigDecimal.isPositive(data.amount) || BigDecimal.isNegative(fee)) continue
          if (credit && !BigDecimal.isPositive(BigDecimal.subtract(data.amount, fee))) continue
          chunk.push(lineOf(BigDecimal.fromNumberUnsafe(0)))
          counts.status_mismatch++
        }
        if (draw() < options.shares.missingInLedger) {
          fabricated++
          chunk.push(
            `never-received-${options.seed ?? 32}-${options.date}-${fabricated},virtualaccount.credit,100.00,0.00,100.00,NGN,9900000000,${options.date}T12:00:00Z`
          )
          counts.missing_in_ledger++
        }
      }
      lines += chunk.length
      if (chunk.length > 0) options.write(`${chunk.join("\n")}\n`)
      const last = rows[rows.length - 1]
      if (rows.length < pageSize || last === undefined) break
      after = { at: last.received_at, id: last.id }
    }
    return { lines, matched, byKind: counts } satisfies ExpectedCounts
  })
