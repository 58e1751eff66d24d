import {
  LedgerSeals,
  type Seal,
  type SealChain,
  type SealDraft,
  type SealMember,
  type SealRange,
  type SealSegment,
  type StoredSeal
} from "@payments-gaming/domain/ledger"
import { Effect, Layer, Option, Schema, Stream } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

// An arbitrary constant, not the migrations' (Migrations.ts): the advisory lock one sealer holds.
const SEAL_LOCK_KEY = 7_340_213_031

/** How many transactions one read of the sealed history asks for, about (whole seals at a time). */
const HISTORY_PAGE_TRANSACTIONS = 10_000
/** How many seal rows one read of the sealed history asks for, at most. */
const HISTORY_PAGE_SEALS = 1_000

const SealRow = rowSchema(
  Schema.Struct({
    sequence: Schema.BigInt,
    hash: Schema.String,
    previous_hash: Schema.String,
    transactions: Schema.Number,
    sealed_at: Schema.Date
  }),
  (row): Seal => ({
    sequence: Number(row.sequence),
    hash: row.hash,
    previousHash: row.previous_hash,
    transactions: row.transactions,
    sealedAt: row.sealed_at.toISOString()
  })
)

const Texts = Schema.NullOr(Schema.Array(Schema.String))
const Digits = /^-?\d{1,20}$/
const bigintOf = (text: string): bigint => {
  if (!Digits.test(text)) throw new Error(`not an integer: ${text}`)
  return BigInt(text)
}

const TransactionColumns = {
  id: Schema.String,
  idempotency_key: Schema.String,
  kind: Schema.String,
  created_at: Schema.String,
  posting_ids: Texts,
  accounts: Texts,
  units: Texts,
  amounts: Texts
}

const transactionOf = (row: {
  readonly id: string
  readonly idempotency_key: string
  readonly kind: string
  readonly created_at: string
  readonly posting_ids: ReadonlyArray<string> | null
  readonly accounts: ReadonlyArray<string> | null
  readonly units: ReadonlyArray<string> | null
  readonly amounts: ReadonlyArray<string> | null
}): SealChain.SealableTransaction => {
  const ids = row.posting_ids ?? []
  return {
    id: bigintOf(row.id),
    key: row.idempotency_key,
    kind: row.kind,
    createdAt: row.created_at,
    postings: ids.map((id, index) => ({
      id: bigintOf(id),
      account: row.accounts?.[index] ?? "",
      currency: row.units?.[index] ?? "",
      amountMinor: bigintOf(row.amounts?.[index] ?? "")
    }))
  }
}

/** A transaction not sealed yet, with its postings, as the sealer reads it. */
const PendingRow = rowSchema(
  Schema.Struct({ ...TransactionColumns, xact_id: Schema.NullOr(Schema.String) }),
  (row) => ({ transaction: transactionOf(row), xactId: row.xact_id === null ? null : bigintOf(row.xact_id) })
)

/** A membership row with its transaction as the ledger holds it now (its columns null: gone). */
const MemberRow = rowSchema(
  Schema.Struct({
    seal_sequence: Schema.String,
    transaction_id: Schema.String,
    digest: Schema.String,
    id: Schema.NullOr(Schema.String),
    idempotency_key: Schema.NullOr(Schema.String),
    kind: Schema.NullOr(Schema.String),
    created_at: Schema.NullOr(Schema.String),
    posting_ids: Texts,
    accounts: Texts,
    units: Texts,
    amounts: Texts
  }),
  (row): SealMember & { readonly sequence: number } => ({
    sequence: Number(row.seal_sequence),
    transactionId: bigintOf(row.transaction_id),
    digest: row.digest,
    transaction:
      row.id === null || row.idempotency_key === null || row.kind === null || row.created_at === null
        ? undefined
        : transactionOf({
            ...row,
            id: row.id,
            idempotency_key: row.idempotency_key,
            kind: row.kind,
            created_at: row.created_at
          })
  })
)

const StoredRow = rowSchema(
  Schema.Struct({
    sequence: Schema.String,
    hash: Schema.String,
    previous_hash: Schema.String,
    transactions: Schema.Number
  }),
  (row): StoredSeal & { readonly sequence: number } => ({
    sequence: Number(row.sequence),
    hash: row.hash,
    previousHash: row.previous_hash,
    transactions: row.transactions
  })
)

/**
 * The seals on PostgreSQL (migration 0016): the sealer's one transaction, the listing, and the
 * sealed history read back in pages for verify and export.
 *
 * What a seal covers is decided by visibility, never by an id range: the sealer reads the
 * committed transactions that no seal covers yet, in ascending id, so a transaction that commits
 * after a seal that covered higher ids (it began earlier, committed later) is simply not visible
 * to that seal and goes into the next one. It never takes a lock a posting waits on: the
 * advisory lock is only the sealers' own, and reading committed rows locks nothing.
 */
export const layer = Layer.effect(
  LedgerSeals,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // The postings of each transaction as arrays in posting id order, every value as text (exact).
    const postingsOf = (transactionId: string) => sql`LEFT JOIN LATERAL (
        SELECT array_agg(p.id::text ORDER BY p.id) AS posting_ids,
               array_agg(p.account_id ORDER BY p.id) AS accounts,
               array_agg(p.unit ORDER BY p.id) AS units,
               array_agg(p.amount_minor::text ORDER BY p.id) AS amounts
        FROM ledger_postings p WHERE p.transaction_id = ${sql.literal(transactionId)}
      ) p ON true`

    const createdAt = (column: string) =>
      sql.literal(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`)

    /**
     * The oldest committed transactions no seal covers, at or above `horizon` (every one when it
     * is null: the first seals, which also read the rows written before migration 0016).
     */
    const pending = (horizon: bigint | null, limit: number) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: PendingRow,
        execute: () => sql`WITH batch AS (
            SELECT t.id, t.idempotency_key, t.kind, t.created_at, t.xact_id
            FROM ledger_transactions t
            WHERE ${horizon === null ? sql.literal("true") : sql`t.xact_id >= ${horizon}`}
              AND NOT EXISTS (SELECT 1 FROM ledger_seal_members m WHERE m.transaction_id = t.id)
            ORDER BY t.id
            LIMIT ${limit}
          )
          SELECT b.id::text AS id, b.idempotency_key, b.kind, ${createdAt("b.created_at")} AS created_at,
            b.xact_id::text AS xact_id, p.posting_ids, p.accounts, p.units, p.amounts
          FROM batch b ${postingsOf("b.id")}
          ORDER BY b.id`
      })(undefined)

    const head = SqlSchema.findOneOption({
      Request: Schema.Void,
      Result: Schema.Struct({ sequence: Schema.BigInt, hash: Schema.String, horizon: Schema.NullOr(Schema.BigInt) }),
      execute: () => sql`SELECT sequence, hash, horizon FROM ledger_seals ORDER BY sequence DESC LIMIT 1`
    })

    const insertSeal = SqlSchema.findOne({
      Request: Schema.Struct({
        sequence: Schema.Number,
        hash: Schema.String,
        previousHash: Schema.String,
        transactions: Schema.Number,
        first: Schema.BigInt,
        last: Schema.BigInt,
        horizon: Schema.NullOr(Schema.BigInt)
      }),
      Result: SealRow,
      execute: (seal) => sql`INSERT INTO ledger_seals
          (sequence, hash, previous_hash, transactions, first_transaction_id, last_transaction_id, horizon)
        VALUES (${seal.sequence}, ${seal.hash}, ${seal.previousHash}, ${seal.transactions}, ${seal.first},
          ${seal.last}, ${seal.horizon})
        RETURNING sequence, hash, previous_hash, transactions, sealed_at`
    })

    const sealNext = (
      limit: number,
      compute: (previousHash: string, batch: ReadonlyArray<SealChain.SealableTransaction>) => Effect.Effect<SealDraft>
    ) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [lock] = yield* sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${SEAL_LOCK_KEY}) AS locked`
            if (lock?.locked !== true) return Option.none()
            // Taken before the read below, in its own statement: every database transaction older
            // than this xmin had ended before that read's snapshot, so if it committed, the read sees it.
            const [snapshot] = yield* sql<{
              xmin: string
            }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`
            const xmin = bigintOf(snapshot?.xmin ?? "")
            const previous = yield* head()
            const horizon = Option.match(previous, { onNone: () => null, onSome: (row) => row.horizon })
            const rows = yield* pending(horizon, limit)
            const first = rows[0]
            const last = rows.at(-1)
            if (first === undefined || last === undefined) return Option.none()
            const full = rows.length >= limit
            const previousHash = Option.match(previous, { onNone: () => "0".repeat(64), onSome: (row) => row.hash })
            const batch = rows.map((row) => row.transaction)
            const draft = yield* compute(previousHash, batch)
            // A full batch may have left committed rows of older database transactions behind:
            // keep the old horizon until a seal takes everything it saw.
            const nextHorizon = full ? horizon : xmin
            const sequence = Option.match(previous, { onNone: () => 1, onSome: (row) => Number(row.sequence) + 1 })
            const seal = yield* insertSeal({
              sequence,
              hash: draft.hash,
              previousHash: draft.previousHash,
              transactions: batch.length,
              first: first.transaction.id,
              last: last.transaction.id,
              horizon: nextHorizon
            })
            yield* sql`INSERT INTO ledger_seal_members (transaction_id, seal_sequence, digest)
              SELECT m.id, ${sequence}, decode(m.digest, 'hex')
              FROM unnest(${`{${batch.map((t) => t.id.toString()).join(",")}}`}::bigint[],
                ${`{${draft.digests.join(",")}}`}::text[]) AS m (id, digest)`
            return Option.some({ seal, full })
          })
        )
        .pipe(Effect.orDie, Effect.withSpan("LedgerSeals.sealNext"))

    const listSeals = (query: { readonly before?: number | undefined; readonly limit: number }) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: SealRow,
        execute: () => sql`SELECT sequence, hash, previous_hash, transactions, sealed_at FROM ledger_seals
          ${query.before === undefined ? sql.literal("") : sql`WHERE sequence < ${query.before}`}
          ORDER BY sequence DESC LIMIT ${query.limit}`
      })(undefined).pipe(Effect.orDie)

    const latest = Effect.map(listSeals({ limit: 1 }), (rows) => Option.fromUndefinedOr(rows[0]))

    const storedPage = (after: number, to: number | undefined) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: StoredRow,
        // Ordered by the column, not by its text (an output name would win in ORDER BY).
        execute: () => sql`SELECT s.sequence::text AS sequence, s.hash, s.previous_hash, s.transactions
          FROM ledger_seals s
          WHERE s.sequence > ${after} ${to === undefined ? sql.literal("") : sql`AND s.sequence <= ${to}`}
          ORDER BY s.sequence LIMIT ${HISTORY_PAGE_SEALS}`
      })(undefined).pipe(Effect.orDie)

    // Members of every sequence in (after, upTo]: those of a seal row that is gone included.
    const membersPage = (after: number, upTo: number | undefined, limit: number | undefined) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: MemberRow,
        execute: () => sql`SELECT m.seal_sequence::text AS seal_sequence, m.transaction_id::text AS transaction_id,
            encode(m.digest, 'hex') AS digest, t.id::text AS id, t.idempotency_key, t.kind,
            ${createdAt("t.created_at")} AS created_at, p.posting_ids, p.accounts, p.units, p.amounts
          FROM ledger_seal_members m
          LEFT JOIN ledger_transactions t ON t.id = m.transaction_id
          ${postingsOf("m.transaction_id")}
          WHERE m.seal_sequence > ${after} ${upTo === undefined ? sql.literal("") : sql`AND m.seal_sequence <= ${upTo}`}
          ORDER BY m.seal_sequence, m.transaction_id
          ${limit === undefined ? sql.literal("") : sql`LIMIT ${limit}`}`
      })(undefined).pipe(Effect.orDie)

    /** Groups members and stored seals into one segment per sequence, ascending. */
    const segmentsOf = (
      stored: ReadonlyArray<StoredSeal & { readonly sequence: number }>,
      members: ReadonlyArray<SealMember & { readonly sequence: number }>
    ): Array<SealSegment> => {
      const bySequence = new Map<number, { stored: StoredSeal | undefined; members: Array<SealMember> }>()
      const entry = (sequence: number) => {
        let found = bySequence.get(sequence)
        if (found === undefined) {
          found = { stored: undefined, members: [] }
          bySequence.set(sequence, found)
        }
        return found
      }
      for (const seal of stored) entry(seal.sequence).stored = seal
      for (const member of members) entry(member.sequence).members.push(member)
      return [...bySequence.entries()]
        .sort(([a], [b]) => a - b)
        .map(([sequence, { stored, members }]) => ({ sequence, stored, members }))
    }

    /**
     * Pages of whole seals of about HISTORY_PAGE_TRANSACTIONS transactions, each read with the
     * members of its sequences (and of any gap before them, whose seal row is gone); after the last
     * seal row, members that name a sequence beyond it, if any.
     */
    const history = (range: SealRange): Stream.Stream<SealSegment> => {
      const start = Math.max((range.from ?? 1) - 1, 0)
      return Stream.paginate(
        { after: start, done: false } as { readonly after: number; readonly done: boolean },
        (state) =>
          Effect.gen(function* () {
            if (state.done) return [[], Option.none()] as const
            const stored = yield* storedPage(state.after, range.to)
            const taken: typeof stored = []
            let count = 0
            for (const seal of stored) {
              if (taken.length > 0 && count + seal.transactions > HISTORY_PAGE_TRANSACTIONS) break
              taken.push(seal)
              count += seal.transactions
            }
            const last = taken.at(-1)
            if (last === undefined) {
              // No seal row left: members that name a later sequence are all that could remain.
              const orphans = yield* membersPage(state.after, range.to, HISTORY_PAGE_TRANSACTIONS)
              return [segmentsOf([], orphans), Option.none()] as const
            }
            const members = yield* membersPage(state.after, last.sequence, undefined)
            return [segmentsOf(taken, members), Option.some({ after: last.sequence, done: false })] as const
          })
      ).pipe(Stream.withSpan("LedgerSeals.history"))
    }

    return LedgerSeals.of({ sealNext, list: listSeals, latest, history })
  })
)
