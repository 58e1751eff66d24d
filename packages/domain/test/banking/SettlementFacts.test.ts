import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { creditAccountNumber, readWebhook, settlementFacts } from "@payments-gaming/domain/banking"
import { BigDecimal, Result } from "effect"

const example = (name: string) =>
  new Uint8Array(readFileSync(join(import.meta.dirname, "../../../../examples/webhooks", `${name}.json`)))
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))
const show = (value: BigDecimal.BigDecimal | null) => (value === null ? null : BigDecimal.format(value))

describe("settlementFacts: the fields a settlement report is compared with, read narrowly", () => {
  it("reads every example the way the whole decoder reads it", () => {
    for (const name of ["virtual-account-credit", "transfer-success", "transfer-failed"]) {
      const body = example(name)
      const whole = readWebhook(body)
      assert.isTrue(Result.isSuccess(whole), name)
      if (Result.isFailure(whole) || whole.success.kind === "ignored") continue
      const decoded = whole.success
      const facts = settlementFacts(decoded.kind, body)
      assert.isDefined(facts, name)
      const data = decoded.payload.data
      assert.deepStrictEqual(
        {
          amount: show(facts?.amount ?? null),
          settledAmount: show(facts?.settledAmount ?? null),
          currency: facts?.currency,
          accountNumber: facts?.accountNumber,
          date: facts?.date
        },
        {
          amount: show(data.amount),
          settledAmount: show(data.settled_amount ?? null),
          currency: data.currency,
          accountNumber:
            decoded.kind === "virtualaccount.credit" ? creditAccountNumber(decoded.payload) : data.account_number,
          date: data.date
        },
        name
      )
    }
  })

  it("keeps amounts exact beyond a double's digits", () => {
    const text = new TextDecoder()
      .decode(example("virtual-account-credit"))
      .replace('"amount": 5000.75', '"amount": 12345678901234567890.12')
    const facts = settlementFacts("virtualaccount.credit", new TextEncoder().encode(text))
    assert.strictEqual(show(facts?.amount ?? null), "12345678901234567890.12")
  })

  it("says nothing of an ignored event, a body that no longer parses, or one without the fields", () => {
    assert.isUndefined(settlementFacts("ignored", example("ignored")))
    assert.isUndefined(settlementFacts("virtualaccount.credit", new TextEncoder().encode("{not json")))
    assert.isUndefined(settlementFacts("transfer.success", bytes({ data: { reference: "only" } })))
  })
})
