import { assert, describe, it } from "@effect/vitest"
import { decodeWebhook, parseJsonExact, readWebhook } from "@payments-gaming/domain/banking"
import { BigDecimal, Result } from "effect"
import { bytes, credit, example, exampleBytes } from "../support/fixtures.ts"

const dec = BigDecimal.fromStringUnsafe

const read = (value: unknown) => readWebhook(bytes(value))

const issuesOf = (value: unknown) => {
  const result = read(value)
  assert.isTrue(Result.isFailure(result), "expected the payload to be refused")
  return Result.isFailure(result) ? result.failure.issues : []
}

describe("webhook decoding", () => {
  it("reads and classifies every sample payload", () => {
    const cases = [
      ["virtual-account-credit", "virtualaccount.credit", "VA-20261121-0001"],
      ["transfer-success", "transfer.success", "TRF-20261121-0001"],
      ["transfer-failed", "transfer.failed", "TRF-20261121-0002"],
      ["ignored", "ignored", "VA-CREATED-9900112233"]
    ] as const
    for (const [name, kind, reference] of cases) {
      const decoded = Result.getOrThrow(readWebhook(exampleBytes(name)))
      assert.strictEqual(decoded.kind, kind, name)
      assert.strictEqual(decoded.reference, reference)
      assert.strictEqual(decoded.dedupKey, `${kind}:${reference}`)
    }
  })

  it("reads the spec 2.7 credit with exact amounts", () => {
    const decoded = Result.getOrThrow(readWebhook(exampleBytes("virtual-account-credit")))
    assert.strictEqual(decoded.kind, "virtualaccount.credit")
    if (decoded.kind !== "virtualaccount.credit") return
    const { data } = decoded.payload
    assert.isTrue(BigDecimal.equals(data.amount, dec("5000.75")))
    assert.isTrue(BigDecimal.equals(data.fee, dec("50.25")))
    assert.isTrue(BigDecimal.equals(data.settled_amount, dec("4950.5")))
    assert.strictEqual(data.source.bank_name, "Zenith Bank")
    assert.strictEqual(decoded.payload.virtualAccountNumber, "9900112233")
  })

  it('reads 1500.5, 1500.50 and "1500.50" as the same exact amount', () => {
    for (const raw of ["1500.5", "1500.50", '"1500.50"', '"1500.5"']) {
      const text = JSON.stringify(credit({ reference: "R", accountNumber: "1" })).replace(
        '"amount":5000.75',
        `"amount":${raw}`
      )
      const decoded = Result.getOrThrow(readWebhook(bytes(text)))
      if (decoded.kind !== "virtualaccount.credit") return assert.fail("not a credit")
      assert.isTrue(BigDecimal.equals(decoded.payload.data.amount, dec("1500.5")), raw)
    }
  })

  it("keeps digits a float would lose", () => {
    const text = JSON.stringify(credit({ reference: "R", accountNumber: "1" })).replace(
      '"amount":5000.75',
      '"amount":12345678901234567890.12'
    )
    const decoded = Result.getOrThrow(readWebhook(bytes(text)))
    if (decoded.kind !== "virtualaccount.credit") return assert.fail("not a credit")
    assert.strictEqual(BigDecimal.format(decoded.payload.data.amount), "12345678901234567890.12")
    // An exponent of at most 64 (MAX_NUMBER_EXPONENT) is kept as written too.
    const parsed = Result.getOrThrow(parseJsonExact(bytes('{"a":0.30000000000000004,"b":[1e64]}')))
    assert.deepStrictEqual(JSON.parse(JSON.stringify(parsed)), {
      a: { source: "0.30000000000000004" },
      b: [{ source: "1e64" }]
    })
  })

  it("accepts nullable fields left out, and extra fields", () => {
    const payload = credit({ reference: "R", accountNumber: "1" })
    for (const key of ["bank_code", "narration", "session_id", "transaction_date", "virtual_account_reference"]) {
      delete payload.data[key]
    }
    payload.data.something_new = { nested: true }
    const decoded = Result.getOrThrow(read(payload))
    if (decoded.kind !== "virtualaccount.credit") return assert.fail("not a credit")
    assert.strictEqual(decoded.payload.data.narration, null)
  })

  it("names every missing or mistyped field by its path", () => {
    const payload = credit({ reference: "R", accountNumber: "1" })
    delete payload.data.settled_amount
    payload.data.amount = true
    payload.data.source = { bank_name: null, account_name: "A" }
    payload.data.status = 7
    const issues = issuesOf(payload)
    const paths = issues.map((issue) => issue.path).sort()
    assert.deepStrictEqual(paths, ["data.amount", "data.settled_amount", "data.source.account_number", "data.status"])
    assert.include(issues.find((issue) => issue.path === "data.settled_amount")!.message, "Missing")
  })

  it("refuses amounts that are strings but not numbers", () => {
    for (const amount of ["", "abc", "1e5", "1,500.00", "NaN"]) {
      const issues = issuesOf(credit({ reference: "R", accountNumber: "1", amount }))
      assert.deepStrictEqual(
        issues.map((issue) => issue.path),
        ["data.amount"],
        amount
      )
    }
  })

  it("makes fee and settled_amount optional for transfers only", () => {
    const transfer = example("transfer-failed")
    assert.isUndefined(transfer.data.fee)
    assert.isTrue(Result.isSuccess(read(transfer)))
    const creditWithoutFee = credit({ reference: "R", accountNumber: "1" })
    delete creditWithoutFee.data.fee
    assert.deepStrictEqual(
      issuesOf(creditWithoutFee).map((issue) => issue.path),
      ["data.fee"]
    )
  })

  it("needs only a reference from an event it will ignore", () => {
    const decoded = Result.getOrThrow(read({ type: "X", event: "Y", data: { reference: "ref-1", whatever: 1 } }))
    assert.strictEqual(decoded.kind, "ignored")
    assert.deepStrictEqual(
      issuesOf({ type: "X", event: "Y", data: {} }).map((issue) => issue.path),
      ["data.reference"]
    )
  })

  it("refuses more than one flag, and flags that are not booleans", () => {
    const both = credit({ reference: "R", accountNumber: "1", top: { transferSuccess: true } })
    const issues = issuesOf(both)
    assert.strictEqual(issues.length, 1)
    assert.include(issues[0]!.message, "more than one event flag")
    assert.deepStrictEqual(
      issuesOf(credit({ reference: "R", accountNumber: "1", top: { transferFailed: "false" } })).map(
        (issue) => issue.path
      ),
      ["transferFailed"]
    )
  })

  it("refuses what is not JSON, not UTF-8 or not an object", () => {
    for (const raw of [bytes("{"), bytes(""), bytes("not json"), new Uint8Array([0x7b, 0xff, 0x7d])]) {
      const result = readWebhook(raw)
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) {
        assert.strictEqual(result.failure.message, "Malformed JSON")
        assert.strictEqual(result.failure.issues[0]!.path, "")
      }
    }
    for (const value of [[], "text", 42, null]) {
      const result = decodeWebhook(value)
      assert.isTrue(Result.isFailure(result), JSON.stringify(value))
    }
  })
})
