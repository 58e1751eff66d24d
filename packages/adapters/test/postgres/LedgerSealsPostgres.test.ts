import { assert, describe, it, layer } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import {
  Ledger,
  LedgerSeals,
  Movements,
  SEAL_BATCH_TRANSACTIONS,
  SealChain,
  SealService,
  type Verification
} from "@payments-gaming/domain/ledger"
import { BigDecimal, Deferred, Effect, Fiber, Layer, Result } from "effect"
import { Digest } from "effect/crypto"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { inject } from "vitest"
import * as LedgerPostgres from "../../src/postgres/LedgerPostgres.ts"
import * as LedgerSealsPostgres from "../../src/postgres/LedgerSealsPostgres.ts"
import { runMigrations } from "../../src/postgres/Migrations.ts"
import * as PostgresClient from "../../src/postgres/PostgresClient.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

const sealsOn = <E, R>(database: Layer.Layer<SqlClient.SqlClient, E, R>) =>
  Layer.mergeAll(SealService.layer, LedgerPostgres.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(LedgerSealsPostgres.layer, Digest.layerWebCrypto)),
    Layer.provideMerge(database)
  )

let counter = 0
const deposit = (amount = "10.00", user = "sealed-user") =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const built = Movements.deposit({
      reference: `SEAL-${process.pid}-${counter++}-${Math.random().toString(36).slice(2)}`,
      userId: user as UserId,
      currency: "NGN",
      amount: BigDecimal.fromStringUnsafe(amount)
    })
    const posted = yield* ledger.post(Result.getOrThrow(built))
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: string }>`SELECT id::text AS id FROM ledger_transactions
      WHERE idempotency_key = ${posted.transaction.key}`
    return BigInt(row?.id ?? "0")
  })

const sealOf = (transactionId: bigint) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ seal: string }>`SELECT seal_sequence::text AS seal FROM ledger_seal_members
      WHERE transaction_id = ${transactionId}`
    return rows.map((row) => Number(row.seal))
  })

const verified = (result: Verification) => {
  assert.strictEqual(
    result._tag,
    "Verified",
    JSON.stringify(result, (_, v) => (typeof v === "bigint" ? String(v) : v))
  )
}

const brokenAt = (result: Verification, transactionId: bigint | undefined) => {
  assert.strictEqual(result._tag, "Broken")
  if (result._tag !== "Broken") return
  assert.strictEqual(result.transactionId, transactionId, result.message)
  return result
}

/** A transaction written straight into the ledger's tables, with the ids it got. */
interface Written {
  readonly key: string
  readonly kind: string
  /** As `ledger export` prints it; written as that instant. */
  readonly createdAt: string
  /** Explicit posting ids (written in this order), so the encoding's id order is not the insert order. */
  readonly postings: ReadonlyArray<{
    readonly id: bigint
    readonly account: string
    readonly unit: string
    readonly amount: bigint
  }>
}

let postingIds = 1_000_000_000_000n

/**
 * Writes `transactions` as a DBA could (the ledger's triggers, balance checks and keys off for the
 * session: `replica`), with whatever keys, accounts and amounts the ledger's own paths would never
 * produce, and answers them as SealChain takes them.
 */
const writeRaw = (transactions: ReadonlyArray<Written>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SET LOCAL session_replication_role = replica`
        const out: Array<SealChain.SealableTransaction> = []
        for (const transaction of transactions) {
          const [row] = yield* sql<{ id: string }>`INSERT INTO ledger_transactions (idempotency_key, kind, created_at)
            VALUES (${transaction.key}, ${transaction.kind}, ${transaction.createdAt}::timestamptz) RETURNING id::text AS id`
          const id = BigInt(row?.id ?? "0")
          for (const posting of transaction.postings) {
            yield* sql`INSERT INTO ledger_postings (id, transaction_id, account_id, unit, amount_minor)
              OVERRIDING SYSTEM VALUE
              VALUES (${posting.id.toString()}::bigint, ${id.toString()}::bigint, ${posting.account}, ${posting.unit},
                ${posting.amount.toString()}::bigint)`
          }
          out.push({
            id,
            key: transaction.key,
            kind: transaction.kind,
            createdAt: transaction.createdAt,
            postings: transaction.postings.map((posting) => ({
              id: posting.id,
              account: posting.account,
              currency: posting.unit,
              amountMinor: posting.amount
            }))
          })
        }
        return out
      })
    )
  })

/**
 * Seals `transactions` (everything else sealed first) and checks that the seal PostgreSQL computed
 * is the one SealChain computes from the values as written: the seal's hash and every member's
 * digest, then verify (which reads them back) over the whole chain.
 */
const sealsExactlyAsSealChain = (transactions: ReadonlyArray<Written>) =>
  Effect.gen(function* () {
    const seals = yield* SealService
    const port = yield* LedgerSeals
    yield* seals.sealPending
    const previous = yield* seals.latest
    const expected = yield* writeRaw(transactions)
    const sealed = yield* port.sealNext(SEAL_BATCH_TRANSACTIONS)
    assert.strictEqual(sealed._tag, "Some")
    if (sealed._tag !== "Some") return
    const encodings = expected.map(SealChain.encodeTransaction)
    const previousHash = previous._tag === "Some" ? previous.value.hash : SealChain.GENESIS_HASH
    assert.strictEqual(sealed.value.seal.previousHash, previousHash)
    assert.strictEqual(sealed.value.seal.transactions, expected.length)
    assert.strictEqual(sealed.value.seal.hash, yield* SealChain.sealHash(previousHash, encodings))
    const digests = yield* port.digests(sealed.value.seal.sequence)
    for (const [index, transaction] of expected.entries()) {
      assert.strictEqual(
        digests.get(transaction.id),
        yield* SealChain.sha256Hex(encodings[index] as Uint8Array),
        `the digest of ${JSON.stringify(transaction.key)}`
      )
    }
    verified(yield* seals.verify({}))
  })

const posting = (account: string, unit: string, amount: bigint) => ({ id: postingIds++, account, unit, amount })

/** Keys, accounts, amounts and times chosen to break a careless encoder: multi-byte UTF-8, limits, order. */
const hostile = (): ReadonlyArray<Written> => {
  const ids = [postingIds + 2n, postingIds + 1n, postingIds]
  postingIds += 3n
  return [
    {
      key: "virtualaccount.credit:ÉTÉ-ü-付款-💸",
      kind: "deposit",
      createdAt: "2026-11-21T18:30:12.123456Z",
      postings: [
        posting("system:provider-settlement:NGN", "NGN", -495050n),
        posting("user:ünïcödé:cash:NGN", "NGN", 495050n)
      ]
    },
    {
      key: `quotes'";--
	‮​ é`,
      kind: "transfer.settle",
      createdAt: "1999-12-31T23:59:59.000001Z",
      postings: [
        posting("system:💰:COIN", "COIN", 9_223_372_036_854_775_807n),
        posting(`user:${"a".repeat(300)}:coins:COIN`, "COIN", -9_223_372_036_854_775_807n)
      ]
    },
    { key: "k".repeat(512), kind: "prize", createdAt: "2026-01-01T00:00:00.000000Z", postings: [] },
    {
      // Written in descending posting id: the encoding takes them ascending.
      key: "out-of-order-postings",
      kind: "transfer.hold",
      createdAt: "2026-06-30T12:00:00.500000Z",
      postings: [
        { id: ids[0] as bigint, account: "a", unit: "NGN", amount: 1n },
        { id: ids[1] as bigint, account: "b", unit: "NGN", amount: -2n },
        { id: ids[2] as bigint, account: "c", unit: "NGN", amount: 1n }
      ]
    }
  ]
}

/** Random transactions of any printable Unicode (no NUL: PostgreSQL's text holds none). */
const randomTransactions = fc.array(
  fc.record({
    key: fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
    kind: fc.constantFrom("deposit", "prize", "transfer.hold", "transfer.settle", "transfer.return"),
    micros: fc.integer({ min: 0, max: 4_102_444_799_999_999 }),
    postings: fc.array(
      fc.record({
        account: fc.string({ unit: "grapheme", maxLength: 30 }),
        amount: fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n }).filter((amount) => amount !== 0n)
      }),
      { maxLength: 4 }
    )
  }),
  { minLength: 1, maxLength: 6 }
)

const asWritten = (generated: typeof randomTransactions extends fc.Arbitrary<infer A> ? A : never): Array<Written> =>
  generated.map((transaction, index) => {
    const millis = Math.floor(transaction.micros / 1000)
    const micros = String(transaction.micros % 1_000_000).padStart(6, "0")
    return {
      key: `fc-${process.pid}-${counter++}-${index}:${transaction.key}`.replaceAll("\u0000", ""),
      kind: transaction.kind,
      createdAt: `${new Date(millis).toISOString().slice(0, 19)}.${micros}Z`,
      postings: transaction.postings.map((p) => posting(p.account.replaceAll("\u0000", ""), "NGN", p.amount))
    }
  })

/** As a DBA with the superuser would: every trigger of the table off, one statement, back on. */
const behindTheServicesBack = (table: string, statement: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql.unsafe(`ALTER TABLE ${table} DISABLE TRIGGER ALL`)
        yield* sql.unsafe(statement)
        yield* sql.unsafe(`ALTER TABLE ${table} ENABLE TRIGGER ALL`)
      })
    )
  })

// Concurrent transactions need the server: the embedded database has one connection (its own block below).
describe.runIf(inject("databaseMode") === "postgres")("on the PostgreSQL server", () =>
  layer(sealsOn(TestDatabase), { timeout: "60 seconds" })("sealed ledger on PostgreSQL", (it) => {
    it.effect("seals every committed transaction once, in a chain that verifies, listed newest first", () =>
      Effect.gen(function* () {
        const seals = yield* SealService
        const first = yield* deposit()
        const second = yield* deposit()
        const written = yield* seals.sealPending
        assert.isAtLeast(written.length, 1)
        assert.deepStrictEqual(yield* sealOf(first), yield* sealOf(second))
        assert.deepStrictEqual(yield* seals.sealPending, [], "nothing left to seal")
        const third = yield* deposit()
        const [next] = yield* seals.sealPending
        assert.strictEqual(next?.transactions, 1)
        assert.deepStrictEqual(yield* sealOf(third), [next?.sequence])

        const latest = yield* seals.latest
        assert.strictEqual(latest._tag, "Some")
        const page = yield* seals.list({ limit: 1 })
        assert.deepStrictEqual(page.items[0], next)
        assert.isNotNull(page.nextCursor)
        const rest = yield* seals.list({ after: page.nextCursor ?? undefined, limit: 200 })
        assert.strictEqual(rest.items[0]?.sequence, (next?.sequence ?? 0) - 1)
        assert.strictEqual(rest.items.at(-1)?.sequence, 1)
        assert.isNull(rest.nextCursor)
        assert.strictEqual(rest.items.at(-1)?.previousHash, "0".repeat(64))

        const result = yield* seals.verify({})
        verified(result)
        if (result._tag === "Verified") assert.strictEqual(result.head, next?.hash)
        const published = rest.items.at(-1)?.hash
        verified(yield* seals.verify({ head: published }))
        assert.strictEqual((yield* seals.verify({ head: "ab".repeat(32) }))._tag, "HeadNotFound")
      })
    )

    it.effect("a transaction that commits after a seal of later ones goes into the next seal, never skipped", () =>
      Effect.gen(function* () {
        const seals = yield* SealService
        const sql = yield* SqlClient.SqlClient
        yield* seals.sealPending
        const inserted = yield* Deferred.make<bigint>()
        const commit = yield* Deferred.make<void>()
        // A: begins and inserts first (the lower id), then waits before its COMMIT.
        const late = yield* Effect.forkChild(
          sql.withTransaction(
            Effect.gen(function* () {
              // Its own user: B must not queue on A's account row (held to A's COMMIT).
              const id = yield* deposit("10.00", "late-user")
              yield* Deferred.succeed(inserted, id)
              yield* Deferred.await(commit)
              return id
            })
          )
        )
        const a = yield* Deferred.await(inserted)
        // B: begins after A, commits first.
        const b = yield* deposit()
        assert.isTrue(a < b, "A drew the lower id")
        const [covering] = yield* seals.sealPending
        assert.deepStrictEqual(yield* sealOf(b), [covering?.sequence])
        assert.deepStrictEqual(yield* sealOf(a), [], "A is not committed: no seal may cover it yet")
        yield* Deferred.succeed(commit, undefined)
        assert.strictEqual(yield* Fiber.join(late), a)
        const [next] = yield* seals.sealPending
        assert.strictEqual(next?.sequence, (covering?.sequence ?? 0) + 1)
        assert.deepStrictEqual(yield* sealOf(a), [next?.sequence])

        const [unsealed] = yield* sql<{ count: string }>`SELECT count(*)::text AS count FROM ledger_transactions t
        WHERE NOT EXISTS (SELECT 1 FROM ledger_seal_members m WHERE m.transaction_id = t.id)`
        assert.strictEqual(unsealed?.count, "0")
        verified(yield* seals.verify({}))
      })
    )

    it.effect("a backlog cut into seals of `limit` leaves nothing behind, a late commit among it included", () =>
      Effect.gen(function* () {
        const seals = yield* SealService
        const port = yield* LedgerSeals
        const sql = yield* SqlClient.SqlClient
        yield* seals.sealPending
        const inserted = yield* Deferred.make<bigint>()
        const commit = yield* Deferred.make<void>()
        const late = yield* Effect.forkChild(
          sql.withTransaction(
            Effect.gen(function* () {
              const id = yield* deposit("10.00", "late-backlog-user")
              yield* Deferred.succeed(inserted, id)
              yield* Deferred.await(commit)
              return id
            })
          )
        )
        const a = yield* Deferred.await(inserted)
        const backlog: Array<bigint> = []
        for (let i = 0; i < 5; i++) backlog.push(yield* deposit("1.00", `backlog-${i}`))
        const first = yield* port.sealNext(2)
        assert.isTrue(first._tag === "Some" && first.value.full, "cut at the limit")
        assert.deepStrictEqual(yield* sealOf(backlog[1] ?? 0n), yield* sealOf(backlog[0] ?? 0n))
        yield* Deferred.succeed(commit, undefined)
        assert.strictEqual(yield* Fiber.join(late), a)
        const covered: Array<number> = []
        while (true) {
          const next = yield* port.sealNext(2)
          if (next._tag === "None") break
          covered.push(next.value.seal.transactions)
        }
        assert.deepStrictEqual(covered, [2, 2])
        const [sealOfA] = yield* sealOf(a)
        const [sealOfThird] = yield* sealOf(backlog[2] ?? 0n)
        assert.strictEqual(sealOfA, sealOfThird, "A, committed late, goes into the next seal in id order")
        const [unsealed] = yield* sql<{ count: string }>`SELECT count(*)::text AS count FROM ledger_transactions t
        WHERE NOT EXISTS (SELECT 1 FROM ledger_seal_members m WHERE m.transaction_id = t.id)`
        assert.strictEqual(unsealed?.count, "0")
        verified(yield* seals.verify({}))
      })
    )

    it.effect("the sealer puts a backlog larger than its batch into seals of at most SEAL_BATCH_TRANSACTIONS", () =>
      Effect.gen(function* () {
        const seals = yield* SealService
        yield* seals.sealPending
        const backlog = yield* Effect.forEach(
          Array.from({ length: SEAL_BATCH_TRANSACTIONS + 1 }, (_, i) => i),
          (i) => deposit("1.00", `batch-${i % 50}`),
          { concurrency: 8 }
        )
        const written = yield* seals.sealPending
        assert.deepStrictEqual(
          written.map((seal) => seal.transactions),
          [SEAL_BATCH_TRANSACTIONS, 1],
          "one full seal, then the rest at once"
        )
        assert.strictEqual(written[1]?.previousHash, written[0]?.hash)
        assert.sameMembers(
          [...new Set((yield* Effect.forEach(backlog, sealOf)).flat())],
          written.map((seal) => seal.sequence)
        )
        verified(yield* seals.verify({}))
      })
    )

    it.effect("a posting commits while a seal is in progress: sealing holds nothing a posting waits on", () =>
      Effect.gen(function* () {
        const seals = yield* SealService
        const port = yield* LedgerSeals
        const sql = yield* SqlClient.SqlClient
        yield* deposit("3.00", "sealed-user")
        const sealedOne = yield* Deferred.make<void>()
        const finish = yield* Deferred.make<void>()
        // The seal, inside a transaction held open after it (and with it every lock the seal took,
        // the sealers' own included) until told.
        const sealing = yield* Effect.forkChild(
          sql.withTransaction(
            Effect.gen(function* () {
              const sealed = yield* port.sealNext(10)
              yield* Deferred.succeed(sealedOne, undefined)
              yield* Deferred.await(finish)
              return sealed
            })
          )
        )
        yield* Deferred.await(sealedOne)
        // Same user as the transaction being sealed: its account row, the ledger's tables.
        const during = yield* deposit("4.00", "sealed-user")
        assert.isTrue(during > 0n, "posted and committed while the seal was open")
        assert.deepStrictEqual(yield* seals.sealPending, [], "another sealer skips the round rather than wait")
        yield* Deferred.succeed(finish, undefined)
        const sealed = yield* Fiber.join(sealing)
        assert.strictEqual(sealed._tag, "Some")
        assert.deepStrictEqual(yield* sealOf(during), [], "it committed after that seal read: the next seal has it")
        const [next] = yield* seals.sealPending
        assert.deepStrictEqual(yield* sealOf(during), [next?.sequence])
        verified(yield* seals.verify({}))
      })
    )

    it.effect("the seal PostgreSQL computes is SealChain's, byte for byte, on hostile keys, accounts and amounts", () =>
      Effect.gen(function* () {
        yield* sealsExactlyAsSealChain(hostile())
        const samples = fc.sample(randomTransactions, { numRuns: 15, seed: 35 })
        for (const sample of samples) yield* sealsExactlyAsSealChain(asWritten(sample))
      })
    )

    it.effect("two sealers at once make one chain, each transaction in exactly one seal", () =>
      Effect.gen(function* () {
        const seals = yield* SealService
        const sql = yield* SqlClient.SqlClient
        for (let round = 0; round < 5; round++) {
          yield* Effect.forEach([1, 2, 3], () => deposit(), { concurrency: 3 })
          yield* Effect.all([seals.sealPending, seals.sealPending, seals.sealPending], { concurrency: 3 })
        }
        yield* seals.sealPending
        const [counts] = yield* sql<{ sealed: string; transactions: string; covered: string }>`SELECT
          (SELECT count(*) FROM ledger_seal_members)::text AS sealed,
          (SELECT count(*) FROM ledger_transactions)::text AS transactions,
          (SELECT sum(transactions) FROM ledger_seals)::text AS covered`
        assert.strictEqual(counts?.sealed, counts?.transactions)
        assert.strictEqual(counts?.covered, counts?.transactions)
        verified(yield* seals.verify({}))
      })
    )

    it.effect("verify names what a DBA changed with the triggers off, and holds again once restored", () =>
      Effect.gen(function* () {
        const seals = yield* SealService
        const sql = yield* SqlClient.SqlClient
        const victim = yield* deposit("25.00")
        yield* deposit()
        yield* seals.sealPending
        verified(yield* seals.verify({}))
        const [posting] = yield* sql<{ id: string; amount: string }>`SELECT id::text AS id, amount_minor::text AS amount
        FROM ledger_postings WHERE transaction_id = ${victim} ORDER BY id DESC LIMIT 1`
        const postingId = posting?.id ?? ""

        // An amount changed.
        yield* behindTheServicesBack(
          "ledger_postings",
          `UPDATE ledger_postings SET amount_minor = 250000 WHERE id = ${postingId}`
        )
        const changed = brokenAt(yield* seals.verify({}), victim)
        assert.include(changed?.message, `transaction ${victim}`)
        yield* behindTheServicesBack(
          "ledger_postings",
          `UPDATE ledger_postings SET amount_minor = ${posting?.amount} WHERE id = ${postingId}`
        )
        verified(yield* seals.verify({}))

        // A posting deleted, then put back as it was.
        const [saved] = yield* sql<{
          account_id: string
          unit: string
          created_at: Date
        }>`SELECT account_id, unit, created_at
        FROM ledger_postings WHERE id = ${postingId}`
        yield* behindTheServicesBack("ledger_postings", `DELETE FROM ledger_postings WHERE id = ${postingId}`)
        brokenAt(yield* seals.verify({}), victim)
        yield* behindTheServicesBack(
          "ledger_postings",
          `INSERT INTO ledger_postings (id, transaction_id, account_id, unit, amount_minor, created_at) OVERRIDING SYSTEM VALUE
         VALUES (${postingId}, ${victim}, '${saved?.account_id}', '${saved?.unit}', ${posting?.amount}, '${saved?.created_at.toISOString()}')`
        )
        verified(yield* seals.verify({}))

        // A posting inserted.
        yield* behindTheServicesBack(
          "ledger_postings",
          `INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor) VALUES (${victim}, '${saved?.account_id}', 'NGN', 100)`
        )
        brokenAt(yield* seals.verify({}), victim)
        yield* behindTheServicesBack(
          "ledger_postings",
          `DELETE FROM ledger_postings WHERE transaction_id = ${victim} AND amount_minor = 100`
        )
        verified(yield* seals.verify({}))

        // A seal rewritten.
        const [seal] = yield* sql<{
          sequence: string
          hash: string
        }>`SELECT sequence::text AS sequence, hash FROM ledger_seals
        ORDER BY sequence DESC LIMIT 1`
        yield* behindTheServicesBack(
          "ledger_seals",
          `UPDATE ledger_seals SET hash = '${"e".repeat(64)}' WHERE sequence = ${seal?.sequence}`
        )
        const rewritten = brokenAt(yield* seals.verify({}), undefined)
        assert.strictEqual(rewritten?.sequence, Number(seal?.sequence))
        yield* behindTheServicesBack(
          "ledger_seals",
          `UPDATE ledger_seals SET hash = '${seal?.hash}' WHERE sequence = ${seal?.sequence}`
        )
        verified(yield* seals.verify({}))

        // The seal tables refuse changes while their triggers are on, like the ledger.
        const refused = yield* sql`UPDATE ledger_seals SET hash = hash`.pipe(Effect.flip)
        assert.strictEqual(refused._tag, "SqlError")
        const removed = yield* sql`DELETE FROM ledger_seal_members`.pipe(Effect.flip)
        assert.strictEqual(removed._tag, "SqlError")
      })
    )
  })
)

describe("sealed ledger on the embedded database", () => {
  // Always PGlite, whatever the run's server: its one connection runs the sealer's transaction too.
  const Embedded = PostgresClient.layer({ url: undefined, dataDir: undefined }).pipe(
    Layer.tap((context) => Effect.provide(runMigrations, context)),
    Layer.orDie
  )
  it.effect(
    "seals, verifies and catches a changed amount",
    () =>
      Effect.gen(function* () {
        const seals = yield* SealService
        const victim = yield* deposit("7.00")
        yield* deposit()
        const written = yield* seals.sealPending
        assert.strictEqual(written[0]?.transactions, 2)
        verified(yield* seals.verify({}))
        yield* behindTheServicesBack(
          "ledger_postings",
          `UPDATE ledger_postings SET amount_minor = amount_minor * 10 WHERE transaction_id = ${victim}`
        )
        brokenAt(yield* seals.verify({}), victim)
      }).pipe(Effect.provide(sealsOn(Embedded))),
    { timeout: 60_000 }
  )

  it.effect(
    "the seal PGlite computes is SealChain's, byte for byte, on hostile keys, accounts and amounts",
    () =>
      Effect.gen(function* () {
        yield* sealsExactlyAsSealChain(hostile())
        for (const sample of fc.sample(randomTransactions, { numRuns: 5, seed: 35 })) {
          yield* sealsExactlyAsSealChain(asWritten(sample))
        }
      }).pipe(Effect.provide(sealsOn(Embedded))),
    { timeout: 60_000 }
  )
})
