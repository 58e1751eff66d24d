import { BigDecimal, Effect, Option, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"
import { Money, Unit } from "../money/index.ts"
import { referenceOf } from "./LedgerKeys.ts"
import type { TransactionKind } from "./LedgerTransaction.ts"

/*
 * A user's wallet statement: every posting to the user's accounts, newest first, with the balance
 * just after it. The ledger's kinds, except `prize`, which a player knows as a wheel prize.
 */

export const StatementKind = Schema.Literals([
  "deposit",
  "spin.prize",
  "transfer.hold",
  "transfer.settle",
  "transfer.return"
]).annotate({
  description:
    "`deposit` a bank credit, `spin.prize` a wheel prize, `transfer.hold` money held for an outbound transfer, " +
    "`transfer.settle` its payout, `transfer.return` a failed transfer's hold given back"
})
export type StatementKind = typeof StatementKind.Type

/** What a player calls a ledger kind: a `prize` is the wheel's. */
export const statementKindOf = (kind: TransactionKind): StatementKind => (kind === "prize" ? "spin.prize" : kind)

export const Direction = Schema.Literals(["CREDIT", "DEBIT"]).annotate({
  description: "CREDIT: the posting raised the balance; DEBIT: it lowered it"
})
export type Direction = typeof Direction.Type

/** One line of the statement, as the API shows it: amounts are unsigned decimal text, `direction` says which way. */
export const StatementItem = Schema.Struct({
  id: Schema.String.annotate({
    description:
      "The posting's id as this user sees it: unique and stable, opaque (it says nothing of other postings); " +
      "the last item's id is the page's nextCursor"
  }),
  occurredAt: Schema.String.annotate({ description: "When the movement was posted, ISO 8601 UTC" }),
  kind: StatementKind,
  direction: Direction,
  amount: Schema.String.annotate({
    description: 'Decimal text at the currency\'s precision ("4950.50"); whole coins for COIN ("20")'
  }),
  balanceAfter: Schema.String.annotate({
    description: "The account's balance just after this posting, in the same form as `amount`"
  }),
  currency: Unit.annotate({ description: "ISO 4217 code, or COIN for wheel coins" }),
  reference: Schema.String.annotate({
    description: "The bank reference of a deposit, the spin id of a prize, the transfer reference of a transfer"
  })
})
export type StatementItem = typeof StatementItem.Type

/**
 * The statement's `cursor`: the `id` of the last item of a page, as `nextCursor` hands it out (text
 * of 22 URL-safe base64 characters, a sealed posting id: `StatementIds`). Its shape is checked here
 * (a 400 at the edge); whether it is one of this user's is the service's to say
 * (`InvalidStatementCursor`, a 400 too).
 */
export const StatementCursor = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_-]{1,128}$/, { message: "an opaque cursor from a previous page's nextCursor" })
)
export type StatementCursor = typeof StatementCursor.Type

export const StatementPage = Schema.Struct({
  items: Schema.Array(StatementItem),
  nextCursor: Schema.NullOr(StatementCursor).annotate({
    description: "Pass as `cursor` for the next page; null on the last page"
  })
})
export type StatementPage = typeof StatementPage.Type

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/

/**
 * A `from` or `to` bound: an ISO 8601 instant with its offset (`2026-11-21T18:30:00Z`,
 * `2026-11-21T19:30:00+01:00`). A calendar date that does not exist (February 30th) is refused
 * rather than rolled over, as is anything without an offset, whose instant would depend on a zone.
 */
export const Instant = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Date,
    SchemaTransformation.transformEffect<Date, string>({
      decode: (text, options) => {
        const at = readInstant(text)
        return at === undefined
          ? Effect.fail(
              new SchemaIssue.InvalidValue(
                { expected: "an ISO 8601 instant such as 2026-11-21T18:30:00Z" },
                text,
                options
              )
            )
          : Effect.succeed(at)
      },
      encode: (at) => Effect.succeed(at.toISOString())
    })
  )
)

const readInstant = (text: string): Date | undefined => {
  if (!ISO_INSTANT.test(text)) return undefined
  const at = new Date(text)
  if (Number.isNaN(at.getTime())) return undefined
  // Date rolls 02-30 over to 03-02: the day written must be the day read, in the written offset.
  const offsetMinutes = text.endsWith("Z")
    ? 0
    : (text.at(-6) === "-" ? -1 : 1) * (Number(text.slice(-5, -3)) * 60 + Number(text.slice(-2)))
  const written = new Date(at.getTime() + offsetMinutes * 60_000).toISOString()
  return written.slice(0, 16) === text.slice(0, 16) ? at : undefined
}

/** One posting to one of the user's accounts, with its account's balance just after it, as the port reads it. */
export interface StatementEntry {
  /** The posting id (global); the statement's order (descending). Shown only sealed (`StatementIds`). */
  readonly id: bigint
  readonly occurredAt: Date
  readonly kind: TransactionKind
  /** The transaction's idempotency key, from which the reference is read back. */
  readonly key: string
  readonly unit: Unit
  /** Signed, in the unit's minor units: positive raised the balance. */
  readonly amountMinor: bigint
  readonly balanceAfterMinor: bigint
}

/** The item of `entry`, its id `id` (the posting id as `StatementIds` sealed it for the user). */
export const toStatementItem = (entry: StatementEntry, id: string): StatementItem => ({
  id,
  occurredAt: entry.occurredAt.toISOString(),
  kind: statementKindOf(entry.kind),
  direction: entry.amountMinor < 0n ? "DEBIT" : "CREDIT",
  amount: Money.formatMinorUnits(entry.unit, entry.amountMinor < 0n ? -entry.amountMinor : entry.amountMinor),
  balanceAfter: Money.formatMinorUnits(entry.unit, entry.balanceAfterMinor),
  currency: entry.unit,
  reference: referenceOf(entry.kind, entry.key)
})

/**
 * The balance after each posting of one account, newest first, from the balance after the newest:
 * each older posting's balance is the newer one's minus the newer posting. This is the arithmetic
 * of the statement: the balance after a posting is the account's balance less everything posted
 * after it.
 */
export const balancesAfter = (balanceAfterNewest: bigint, amountsNewestFirst: ReadonlyArray<bigint>): Array<bigint> => {
  const balances: Array<bigint> = []
  let balance = balanceAfterNewest
  for (const amount of amountsNewestFirst) {
    balances.push(balance)
    balance -= amount
  }
  return balances
}

/** An item's signed amount in minor units; undefined when its text is not an amount of its currency. */
const signedMinor = (currency: Unit, text: string, direction: Direction = "CREDIT"): bigint | undefined => {
  const decimal = BigDecimal.fromString(text)
  if (Option.isNone(decimal)) return undefined
  const minor = Money.toMinorUnits(Money.make(currency, decimal.value))
  if (Result.isFailure(minor)) return undefined
  return direction === "DEBIT" ? -minor.success : minor.success
}

/**
 * Checks a run of consecutive statement items (newest first, as pages join) against itself: for
 * each currency, an item's balance is the next older item's balance plus the item's signed amount.
 * Returns one line per break; an empty list means the statement replays. Only meaningful without a
 * `from`/`to` filter, which may leave postings out between two items.
 */
export const replayBreaks = (items: ReadonlyArray<StatementItem>): Array<string> => {
  const breaks: Array<string> = []
  const newer = new Map<Unit, StatementItem>()
  for (const item of items) {
    const previous = newer.get(item.currency)
    newer.set(item.currency, item)
    if (previous === undefined) continue
    const previousAfter = signedMinor(previous.currency, previous.balanceAfter)
    const previousAmount = signedMinor(previous.currency, previous.amount, previous.direction)
    const after = signedMinor(item.currency, item.balanceAfter)
    if (previousAfter === undefined || previousAmount === undefined || after === undefined) {
      breaks.push(`${previous.id}/${item.id}: an amount that is not ${item.currency}`)
    } else if (previousAfter !== after + previousAmount) {
      breaks.push(
        `${item.currency}: ${previous.id} shows ${previous.balanceAfter} after ${previous.direction} ${previous.amount}, ` +
          `but ${item.id} before it shows ${item.balanceAfter}`
      )
    }
  }
  return breaks
}
