import {
  LedgerSeals,
  type Seal,
  SealChain,
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

const Digits = /^-?\d{1,20}$/
const bigintOf = (text: string): bigint => {
  if (!Digits.test(text)) throw new Error(`not an integer: ${text}`)
  return BigInt(text)
}

type Member = SealMember & { readonly sequence: number }

/** A membership with its transaction's columns (null: the transaction is gone). */
const MemberRow = Schema.Struct({
  seal_sequence: Schema.BigInt,
  transaction_id: Schema.BigInt,
  present: Schema.Boolean,
  idempotency_key: Schema.NullOr(Schema.String),
  kind: Schema.NullOr(Schema.String),
  created_at: Schema.NullOr(Schema.String)
})
type MemberRow = typeof MemberRow.Type
const isMemberRow = Schema.is(MemberRow)

/** A posting of the page's transaction id range. */
const PostingRow = Schema.Struct({
  transaction_id: Schema.BigInt,
  id: Schema.BigInt,
  account_id: Schema.String,
  unit: Schema.String,
  amount_minor: Schema.BigInt
})
type PostingRow = typeof PostingRow.Type
const isPostingRow = Schema.is(PostingRow)

/**
 * Members and postings, both ascending by transaction id, walked together: each member gets the
 * postings of its transaction; postings of transactions outside the page (another seal's, within
 * the id range) are passed over.
 */
const mergeMembers = (members: ReadonlyArray<MemberRow>, postings: ReadonlyArray<PostingRow>): Array<Member> => {
  const out: Array<Member> = []
  let at = 0
  for (const row of members) {
    while (at < postings.length && (postings[at] as PostingRow).transaction_id < row.transaction_id) at++
    const own: Array<SealChain.SealedPosting> = []
    while (at < postings.length && (postings[at] as PostingRow).transaction_id === row.transaction_id) {
      const posting = postings[at] as PostingRow
      own.push({
        id: posting.id,
        account: posting.account_id,
        currency: posting.unit,
        amountMinor: posting.amount_minor
      })
      at++
    }
    out.push({
      sequence: Number(row.seal_sequence),
      transactionId: row.transaction_id,
      transaction:
        !row.present || row.idempotency_key === null || row.kind === null || row.created_at === null
          ? undefined
          : {
              id: row.transaction_id,
              key: row.idempotency_key,
              kind: row.kind,
              createdAt: row.created_at,
              postings: own
            }
    })
  }
  return out
}

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
 * The seals on PostgreSQL (migration 0017): the sealer's one transaction, the listing, and the
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
    // `createdAt` as docs/ledger-seals.md spells it (UTC, six fractional digits): what the sealer
    // encodes and what verify and export read back must be the one text.
    const createdAtText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    const createdAt = (column: string) => sql.literal(createdAtText(column))

    /** Where the next seal looks (see `sealNext`); none before the first seal: it reads every row. */
    interface Frontier {
      readonly horizon: bigint
      readonly resumeAfter: bigint | null
    }

    // OFFSET 0 keeps the check a probe of the members' primary key per candidate, in id order, stopping
    // at `limit`: as a plain NOT EXISTS the planner may turn it into an anti-join that hashes every
    // member ever sealed, for every seal (about 30 ms at 200,000 sealed transactions, and growing).
    // PostgreSQL does not flatten an EXISTS whose subquery has an OFFSET.
    const unsealed = sql.literal(
      "NOT EXISTS (SELECT 1 FROM ledger_seal_members m WHERE m.transaction_id = t.id OFFSET 0)"
    )
    /** What a seal reads of a transaction (`candidates`, for `encodings`). */
    const columns = sql.literal("t.id, t.idempotency_key, t.kind, t.created_at")

    /**
     * `str(s)` of docs/ledger-seals.md in SQL: the UTF-8 bytes of `expression` (text), after their
     * length as four bytes big-endian (int4send). convert_to is the identity on a UTF8 database
     * (PostgreSQL's default, and PGlite's); on one in another encoding it converts, except from
     * SQL_ASCII, which has no conversion: there verify would report every seal with a non-ASCII byte.
     */
    const str = (expression: string) =>
      `int4send(octet_length(convert_to(${expression}, 'UTF8'))) || convert_to(${expression}, 'UTF8')`

    /**
     * encode(t) of every transaction of the batch, in SQL, byte for byte what SealChain.encodeTransaction
     * writes (docs/ledger-seals.md): str(id) ‖ str(key) ‖ str(kind) ‖ str(createdAt) ‖ u32(n) ‖ the
     * postings in ascending id, each str(id) ‖ str(account) ‖ str(currency) ‖ str(amount). Ids and
     * amounts as PostgreSQL prints a bigint (what BigInt's toString gives), createdAt as `ledger
     * export` prints it. LedgerSealsPostgres.test.ts holds it to SealChain's encoder on hostile
     * keys and accounts; `ledger verify` recomputes every seal with SealChain.
     *
     * Each transaction's postings are aggregated in a LATERAL subquery on its id, so PostgreSQL reads
     * them through the `transaction_id` index, a seal's work following its batch. As a join of the
     * batch with `ledger_postings`, the planner hashed the batch and scanned every posting ever
     * written, for every seal, until the table was large enough for index probes to look cheaper
     * (issue 35: about a fifth of a seal's time at 29,000 postings, docs/benchmarks.md).
     */
    const encodings = sql.literal(`SELECT b.id,
        ${str("b.id::text")} || ${str("b.idempotency_key")} || ${str("b.kind")}
        || ${str(createdAtText("b.created_at"))}
        || int4send(postings.n) || postings.encoding AS encoding
      FROM batch b CROSS JOIN LATERAL (
        SELECT count(*)::integer AS n,
          coalesce(string_agg(${str("p.id::text")} || ${str("p.account_id")} || ${str("p.unit")}
            || ${str("p.amount_minor::text")}, ''::bytea ORDER BY p.id), ''::bytea) AS encoding
        FROM ledger_postings p WHERE p.transaction_id = b.id
      ) postings`)

    /**
     * The oldest committed transactions no seal covers (at most `limit`, ascending id), among those
     * of database transactions at or above the horizon and, after a full seal, those numbered above
     * where it stopped. Two ordered range scans (the index on xact_id, the primary key), each cut at
     * `limit`: a backlog is read once, never anti-joined from its start again for every seal. They
     * read the columns the seal encodes as they go, so the batch is not looked up again by id (a
     * second scan of the table, hashed, in the plans PostgreSQL chose for that).
     */
    const candidates = (frontier: Frontier | undefined, limit: number) =>
      frontier === undefined
        ? sql`SELECT ${columns} FROM ledger_transactions t WHERE ${unsealed} ORDER BY t.id LIMIT ${limit}`
        : sql`(SELECT ${columns} FROM ledger_transactions t WHERE t.xact_id >= ${frontier.horizon} AND ${unsealed}
            ORDER BY t.id LIMIT ${limit})
          ${
            frontier.resumeAfter === null
              ? sql.literal("")
              : sql`UNION (SELECT ${columns} FROM ledger_transactions t WHERE t.id > ${frontier.resumeAfter} AND ${unsealed}
                  ORDER BY t.id LIMIT ${limit})`
          }`

    const head = SqlSchema.findOneOption({
      Request: Schema.Void,
      Result: Schema.Struct({
        sequence: Schema.BigInt,
        hash: Schema.String,
        horizon: Schema.BigInt,
        resume_after_id: Schema.NullOr(Schema.BigInt)
      }),
      execute: () => sql`SELECT sequence, hash, horizon, resume_after_id FROM ledger_seals
        ORDER BY sequence DESC LIMIT 1`
    })

    /**
     * One seal, computed and written by PostgreSQL in one statement: the batch read, each transaction
     * encoded (`encodings`), the seal's hash SHA-256(previousHash ‖ encode(t₁) ‖ … ‖ encode(tₙ)), its
     * row, and one membership per transaction with the SHA-256 of its encoding. None of the batch's
     * rows comes to this process: the sealer runs inside the server, and reading, checking,
     * encoding and hashing 1,000 transactions here held every request behind it for 18–37 ms, once
     * every LEDGER_SEAL_INTERVAL (issue 35; docs/benchmarks.md, "Twentieth session").
     */
    const writeSeal = (seal: {
      readonly sequence: number
      readonly previousHash: string
      readonly frontier: Frontier | undefined
      readonly limit: number
      readonly horizon: bigint
    }) =>
      SqlSchema.findOneOption({
        Request: Schema.Void,
        Result: SealRow,
        execute: () => sql`WITH batch AS (
            SELECT c.* FROM (${candidates(seal.frontier, seal.limit)}) c ORDER BY c.id LIMIT ${seal.limit}
          ),
          encoded AS (${encodings}),
          sealed AS (
            INSERT INTO ledger_seals (sequence, hash, previous_hash, transactions, first_transaction_id,
              last_transaction_id, horizon, resume_after_id)
            SELECT ${seal.sequence},
              encode(sha256(decode(${seal.previousHash}, 'hex') || string_agg(e.encoding, ''::bytea ORDER BY e.id)), 'hex'),
              ${seal.previousHash}, count(*), min(e.id), max(e.id), ${seal.horizon},
              CASE WHEN count(*) >= ${seal.limit} THEN max(e.id) END
            FROM encoded e
            HAVING count(*) > 0
            RETURNING sequence, hash, previous_hash, transactions, sealed_at
          ),
          members AS (
            INSERT INTO ledger_seal_members (transaction_id, seal_sequence, digest)
            SELECT e.id, s.sequence, sha256(e.encoding) FROM encoded e CROSS JOIN sealed s
          )
          SELECT sequence, hash, previous_hash, transactions, sealed_at FROM sealed`
      })(undefined)

    const sealNext = (limit: number) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [lock] = yield* sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${SEAL_LOCK_KEY}) AS locked`
            if (lock?.locked !== true) return Option.none()
            // For this transaction only (`set_config(…, true)` is SET LOCAL), in one round trip:
            // - statement_timeout: a pipelined connection cuts statements at 10 s (PostgresClient), and
            //   the first seals of a large ledger read more than a request ever does. Bounded still,
            //   so a stuck round ends.
            // - jit off: a seal's plan can be estimated above `jit_above_cost` (this one's was at
            //   15,000 transactions, and the older join's grew towards it with the tables), and
            //   PostgreSQL then compiles it for every seal: 70 to 600 ms of a busy server's CPU for a
            //   statement that otherwise takes tens of milliseconds at most (issue 35,
            //   docs/benchmarks.md). A seal never runs long enough for compiled code to pay.
            yield* sql`SELECT set_config('statement_timeout', '120s', true), set_config('jit', 'off', true)`
            // Taken before the seal's statement, in its own: every database transaction older than
            // this xmin had ended before that statement's snapshot, so if it committed, the seal sees it.
            const [snapshot] = yield* sql<{
              xmin: string
            }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`
            const horizon = bigintOf(snapshot?.xmin ?? "")
            const previous = yield* head()
            // What the seal reads (docs/ledger-seals.md, "How sealing works"): every row of a database
            // transaction that had not ended before the previous seal's read (xact_id >= its horizon),
            // and, when that seal was cut at its limit, the committed rows it left, all above its last.
            const seal = yield* writeSeal({
              sequence: Option.match(previous, { onNone: () => 1, onSome: (row) => Number(row.sequence) + 1 }),
              previousHash: Option.match(previous, { onNone: () => SealChain.GENESIS_HASH, onSome: (row) => row.hash }),
              frontier: Option.match(previous, {
                onNone: () => undefined,
                onSome: (row) => ({ horizon: row.horizon, resumeAfter: row.resume_after_id })
              }),
              limit,
              horizon
            })
            return Option.map(seal, (seal) => ({ seal, full: seal.transactions >= limit }))
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

    // Members of every sequence in (after, upTo], with their transactions' postings, one row each
    // (a posting's columns null when its transaction has none left). The transaction id range of
    // the page, read first from the members' own index, bounds the scans of the ledger's tables
    // (a seal covers mostly consecutive ids), so they are range scans rather than one lookup per row.
    const membersPage = (after: number, upTo: number | undefined, limit: number | undefined) =>
      Effect.gen(function* () {
        const within = upTo === undefined ? sql.literal("") : sql`AND seal_sequence <= ${upTo}`
        const [bounds] = yield* sql<{
          low: string | null
          high: string | null
        }>`SELECT min(transaction_id)::text AS low,
            max(transaction_id)::text AS high FROM ledger_seal_members WHERE seal_sequence > ${after} ${within}`
        if (bounds?.low == null || bounds.high == null) return []
        const low = bigintOf(bounds.low)
        const high = bigintOf(bounds.high)
        // Two reads of the range, each ordered by transaction id (what the merge joins and the
        // indexes give without a sort), merged here: the members with their transactions, then
        // the postings. One row per posting with its transaction's columns repeated cost half as
        // much again, in PostgreSQL and here. Native int8 columns (read as bigint).
        const members = yield* sql`SELECT m.seal_sequence, m.transaction_id, t.id IS NOT NULL AS present,
            t.idempotency_key, t.kind, ${createdAt("t.created_at")} AS created_at
          FROM ledger_seal_members m
          LEFT JOIN ledger_transactions t ON t.id = m.transaction_id AND t.id BETWEEN ${low} AND ${high}
          WHERE m.seal_sequence > ${after} ${upTo === undefined ? sql.literal("") : sql`AND m.seal_sequence <= ${upTo}`}
          ORDER BY m.transaction_id
          ${limit === undefined ? sql.literal("") : sql`LIMIT ${limit}`}`
        const postings = yield* sql`SELECT p.transaction_id, p.id, p.account_id, p.unit, p.amount_minor
          FROM ledger_postings p WHERE p.transaction_id BETWEEN ${low} AND ${high}
          ORDER BY p.transaction_id, p.id`
        if (!members.every(isMemberRow) || !postings.every(isPostingRow)) {
          return yield* Effect.die(new Error("a row of the sealed history does not have the expected columns"))
        }
        return mergeMembers(members as ReadonlyArray<MemberRow>, postings as ReadonlyArray<PostingRow>)
      }).pipe(Effect.orDie)

    /** Groups members and stored seals into one segment per sequence, ascending. */
    const segmentsOf = (
      stored: ReadonlyArray<StoredSeal & { readonly sequence: number }>,
      members: ReadonlyArray<Member>
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
      // One element per page, one page read ahead while the consumer works on the one before.
      return Stream.paginate(
        { after: start } as { readonly after: number },
        (
          state
        ): Effect.Effect<readonly [ReadonlyArray<Array<SealSegment>>, Option.Option<{ readonly after: number }>]> =>
          Effect.gen(function* () {
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
              return [[segmentsOf([], orphans)], Option.none()] as const
            }
            const members = yield* membersPage(state.after, last.sequence, undefined)
            return [[segmentsOf(taken, members)], Option.some({ after: last.sequence })] as const
          })
      ).pipe(Stream.buffer({ capacity: 1 }), Stream.flattenIterable, Stream.withSpan("LedgerSeals.history"))
    }

    const digests = (sequence: number) =>
      Effect.map(
        sql<{ transaction_id: bigint; digest: string }>`SELECT transaction_id, encode(digest, 'hex') AS digest
          FROM ledger_seal_members WHERE seal_sequence = ${sequence}`,
        (rows): ReadonlyMap<bigint, string> => new Map(rows.map((row) => [BigInt(row.transaction_id), row.digest]))
      ).pipe(Effect.orDie)

    return LedgerSeals.of({ sealNext, list: listSeals, latest, history, digests })
  })
)
