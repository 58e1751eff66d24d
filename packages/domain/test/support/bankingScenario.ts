import { assert } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { BankingService } from "@payments-gaming/domain/banking"
import { Ledger } from "@payments-gaming/domain/ledger"
import { Money } from "@payments-gaming/domain/money"
import { BigDecimal, Effect } from "effect"
import fc from "fast-check"
import type { BankingContext } from "./bankingContract.ts"
import { bytes, credit, transferEvent } from "./fixtures.ts"

const USERS = 3
const REFERENCES = 5
const TRANSFERS = 3

export type Operation =
  | {
      readonly _tag: "credit"
      readonly user: number
      readonly ref: number
      readonly minor: bigint
      readonly fee: bigint
      readonly asString: boolean
    }
  | { readonly _tag: "redeliver"; readonly pick: number }
  | { readonly _tag: "hold"; readonly user: number; readonly ref: number; readonly minor: bigint }
  | { readonly _tag: "settle"; readonly ref: number }
  | { readonly _tag: "fail"; readonly ref: number }
  | { readonly _tag: "link"; readonly user: number }
  | { readonly _tag: "replay" }

export const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("credit" as const),
      user: fc.nat(USERS - 1),
      ref: fc.nat(REFERENCES - 1),
      minor: fc.bigInt(1n, 5_000_000n),
      fee: fc.bigInt(0n, 2_000n),
      asString: fc.boolean()
    })
  },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("redeliver" as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("hold" as const),
      user: fc.nat(USERS - 1),
      ref: fc.nat(TRANSFERS - 1),
      minor: fc.bigInt(1n, 2_000_000n)
    })
  },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("settle" as const), ref: fc.nat(TRANSFERS - 1) }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("fail" as const), ref: fc.nat(TRANSFERS - 1) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("link" as const), user: fc.nat(USERS - 1) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("replay" as const) }) }
)

export const operations = fc.array(operation, { minLength: 1, maxLength: 40 })

const ngn = (minor: bigint) => Money.formatMinorUnits("NGN", minor)

interface TransferModel {
  readonly user: number
  readonly minor: bigint
  status: "PENDING" | "SETTLED" | "FAILED"
}

/**
 * Runs `ops` through `BankingService` and follows them in a small model of what each wallet must
 * hold. After every step each wallet must equal the model; a shortfall must be refused exactly when
 * the model says the wallet is short; and the ledger must reconcile (balanced transactions, balances
 * equal to posting sums, no negative user account). Outcomes of replays are taken from the service,
 * then checked against the wallets like everything else.
 */
export const runScenario = (prefix: string, ops: ReadonlyArray<Operation>) =>
  Effect.gen(function* () {
    const banking = yield* BankingService
    const ledger = yield* Ledger
    const userId = (i: number) => `${prefix}-user-${i}` as UserId
    const accountNumber = (i: number) => `${prefix}-acct-${i}`
    const reference = (i: number) => `${prefix}-ref-${i}`
    const transferReference = (i: number) => `${prefix}-trf-${i}`

    const balance = new Map<number, bigint>()
    const linked = new Set<number>()
    // Dedup key → the money-relevant fields of its first delivery: a later delivery under the key
    // is a duplicate when they agree, a conflict when they do not.
    const sent = new Map<string, string>()
    const expectRedelivery = (key: string, fields: string, outcome: string) =>
      assert.strictEqual(outcome, sent.get(key) === fields ? "duplicate" : "conflict")
    const bodies: Array<{ readonly body: Uint8Array; readonly key: string; readonly fields: string }> = []
    const unmatchedCredits = new Map<string, { readonly account: number; readonly settled: bigint }>()
    const transfers = new Map<number, TransferModel>()
    const add = (user: number, delta: bigint) => balance.set(user, (balance.get(user) ?? 0n) + delta)

    const link = (user: number) =>
      Effect.gen(function* () {
        const result = yield* banking.linkVirtualAccount(accountNumber(user), { userId: userId(user), currency: "NGN" })
        assert.strictEqual(result.created, !linked.has(user))
        linked.add(user)
      })

    const transferOutcome = (kind: "transfer.success" | "transfer.failed", ref: number, outcome: string) => {
      const model = transfers.get(ref)
      if (outcome !== "processed" || model === undefined) return
      if (model.status === "PENDING") {
        model.status = kind === "transfer.success" ? "SETTLED" : "FAILED"
        if (kind === "transfer.failed") add(model.user, model.minor)
      }
    }

    const expectWallets = Effect.gen(function* () {
      for (let user = 0; user < USERS; user++) {
        const wallet = yield* banking.wallet(userId(user))
        const expected = balance.get(user)
        if (expected === undefined) {
          assert.deepStrictEqual(wallet.balances, [])
        } else {
          assert.deepStrictEqual(wallet.balances, [{ currency: "NGN", available: ngn(expected) }], `user ${user}`)
        }
      }
    })

    yield* link(0)
    yield* link(1)

    for (const op of ops) {
      switch (op._tag) {
        case "credit": {
          const fee = op.fee < op.minor ? op.fee : 0n
          const settled = op.minor - fee
          const asJson = (minor: bigint) => (op.asString ? ngn(minor) : Number(ngn(minor)))
          const payload = credit({
            reference: reference(op.ref),
            accountNumber: accountNumber(op.user),
            amount: asJson(op.minor),
            fee: ngn(fee),
            settled: asJson(settled)
          })
          const body = bytes(payload)
          const result = yield* banking.receive({ rawBody: body, signature: "s", receivedAt: new Date() })
          const key = `virtualaccount.credit:${reference(op.ref)}`
          const fields = `${op.user} ${op.minor} ${fee}`
          if (sent.has(key)) {
            expectRedelivery(key, fields, result.outcome)
          } else if (linked.has(op.user)) {
            assert.strictEqual(result.outcome, "processed")
            add(op.user, settled)
          } else {
            assert.strictEqual(result.outcome, "unmatched")
            unmatchedCredits.set(reference(op.ref), { account: op.user, settled })
          }
          if (!sent.has(key)) sent.set(key, fields)
          bodies.push({ body, key, fields })
          break
        }
        case "redeliver": {
          if (bodies.length === 0) break
          const { body, key, fields } = bodies[op.pick % bodies.length]!
          const result = yield* banking.receive({ rawBody: body, signature: "again", receivedAt: new Date() })
          expectRedelivery(key, fields, result.outcome)
          break
        }
        case "hold": {
          const existing = transfers.get(op.ref)
          const result = yield* Effect.result(
            banking.recordTransfer({
              reference: transferReference(op.ref),
              userId: userId(op.user),
              currency: "NGN",
              amount: BigDecimal.fromStringUnsafe(ngn(op.minor))
            })
          )
          if (existing !== undefined) {
            const same = existing.user === op.user && existing.minor === op.minor
            if (same) assert.isTrue(result._tag === "Success" && !result.success.created)
            else assert.isTrue(result._tag === "Failure" && result.failure._tag === "TransferConflict")
          } else if ((balance.get(op.user) ?? 0n) >= op.minor) {
            assert.isTrue(result._tag === "Success" && result.success.created, "a covered hold must succeed")
            add(op.user, -op.minor)
            transfers.set(op.ref, { user: op.user, minor: op.minor, status: "PENDING" })
          } else {
            assert.isTrue(
              result._tag === "Failure" && result.failure._tag === "InsufficientFunds",
              "a short hold must fail"
            )
          }
          break
        }
        case "settle":
        case "fail": {
          const kind = op._tag === "settle" ? "transfer.success" : "transfer.failed"
          const model = transfers.get(op.ref)
          const body = bytes(
            transferEvent({
              outcome: op._tag === "settle" ? "success" : "failed",
              reference: transferReference(op.ref),
              amount: ngn(model?.minor ?? 100n)
            })
          )
          const result = yield* banking.receive({ rawBody: body, signature: "s", receivedAt: new Date() })
          const key = `${kind}:${transferReference(op.ref)}`
          const fields = String(model?.minor ?? 100n)
          if (sent.has(key)) expectRedelivery(key, fields, result.outcome)
          else if (model === undefined) assert.strictEqual(result.outcome, "unmatched")
          else if (model.status === "PENDING") assert.strictEqual(result.outcome, "processed")
          else assert.strictEqual(result.outcome, "rejected")
          if (!sent.has(key)) {
            transferOutcome(kind, op.ref, result.outcome)
            sent.set(key, fields)
          }
          bodies.push({ body, key, fields })
          break
        }
        case "link":
          yield* link(op.user)
          break
        case "replay": {
          const results = yield* banking.replayByStatus("unmatched")
          for (const result of results.filter((r) => r.reference.startsWith(`${prefix}-`))) {
            if (result.kind === "virtualaccount.credit") {
              const pending = unmatchedCredits.get(result.reference)!
              assert.strictEqual(result.outcome, linked.has(pending.account) ? "processed" : "unmatched")
              if (result.outcome === "processed") {
                add(pending.account, pending.settled)
                unmatchedCredits.delete(result.reference)
              }
            } else if (result.kind === "transfer.success" || result.kind === "transfer.failed") {
              const ref = Number(result.reference.slice(`${prefix}-trf-`.length))
              transferOutcome(result.kind, ref, result.outcome)
            }
          }
          break
        }
      }
      yield* expectWallets
    }
    assert.deepStrictEqual(yield* ledger.reconcile, [])
  }).pipe(Effect.orDie)

export type ScenarioContext = BankingContext
