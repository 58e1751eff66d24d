import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, DateTime, Exit, Schema, SchemaIssue } from "effect"
import fc from "fast-check"
import { Challenge, ChallengeId, ChallengeIdFromString, ChallengeInput } from "../../src/trivia/Model.ts"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** The `{ path, message }` entries a failed decode reports, as the HTTP layer lists them. */
const issuesOf = <S extends Schema.Decoder<unknown>>(schema: S, input: unknown) => {
  const exit = Schema.decodeUnknownExit(schema)(input, { errors: "all" })
  if (Exit.isSuccess(exit)) return assert.fail("expected the input to be refused")
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error
  if (!Schema.isSchemaError(error)) return assert.fail("expected a SchemaError")
  return formatIssues(error.issue).issues.map((issue) => ({
    path: (issue.path ?? []).map(String).join("."),
    message: issue.message
  }))
}

const decodeInput = Schema.decodeUnknownSync(ChallengeInput)

const valid = {
  title: "  Friday night quiz  ",
  prizeAmount: 1234567.89,
  startTime: "2030-01-01T18:00:00.000Z",
  endTime: "2030-01-01T19:30:00.000Z",
  questionType: 2,
  questionCount: 10,
  numberOfWinners: 3,
  sharingFormula: "PROPORTIONAL"
}

describe("ChallengeInput", () => {
  it("decodes a valid body: trimmed title, exact prize, UTC instants", () => {
    const input = decodeInput(valid)
    assert.strictEqual(input.title, "Friday night quiz")
    assert.isTrue(BigDecimal.equals(input.prizeAmount, BigDecimal.fromStringUnsafe("1234567.89")))
    assert.strictEqual(input.prizeAmount.value * 10n ** BigInt(2 - input.prizeAmount.scale), 123456789n)
    assert.strictEqual(DateTime.formatIso(input.startTime), "2030-01-01T18:00:00.000Z")
    assert.strictEqual(DateTime.toEpochMillis(input.endTime), Date.UTC(2030, 0, 1, 19, 30))
    assert.strictEqual(input.sharingFormula, "PROPORTIONAL")
  })

  it("accepts instants without or with fewer fractional digits, and EQUAL", () => {
    const input = decodeInput({
      ...valid,
      startTime: "2030-01-01T18:00:00Z",
      endTime: "2030-01-01T18:00:00.5Z",
      sharingFormula: "EQUAL"
    })
    assert.strictEqual(DateTime.toEpochMillis(input.endTime) - DateTime.toEpochMillis(input.startTime), 500)
    assert.strictEqual(input.sharingFormula, "EQUAL")
  })

  it("accepts the boundaries", () => {
    decodeInput({ ...valid, prizeAmount: 0, questionType: 1, questionCount: 1, numberOfWinners: 1 })
    decodeInput({ ...valid, prizeAmount: 999999999999.99, questionCount: 100, title: "x".repeat(200) })
    decodeInput({ ...valid, title: "😀".repeat(200) })
  })

  it("reports every missing field by path", () => {
    assert.deepStrictEqual(
      issuesOf(ChallengeInput, {}).map((issue) => issue.path),
      [
        "title",
        "prizeAmount",
        "startTime",
        "endTime",
        "questionType",
        "questionCount",
        "numberOfWinners",
        "sharingFormula"
      ]
    )
  })

  it.each([
    ["title", "   ", "must be 1 to 200 characters long once trimmed"],
    ["title", "x".repeat(201), "must be 1 to 200 characters long once trimmed"],
    ["title", 12, "Expected string"],
    ["prizeAmount", -0.01, "must be at least 0"],
    ["prizeAmount", 1.005, "must have at most 2 decimal places"],
    ["prizeAmount", 0.1 + 0.2, "must have at most 2 decimal places"],
    ["prizeAmount", 1e12, "must be at most 999999999999.99"],
    ["prizeAmount", Number.NaN, "must be a finite number"],
    ["prizeAmount", Number.POSITIVE_INFINITY, "must be a finite number"],
    [
      "startTime",
      "2030-01-01T18:00:00+01:00",
      "must be an ISO 8601 UTC instant ending in Z, such as 2026-01-31T18:00:00.000Z"
    ],
    [
      "startTime",
      "2030-01-01 18:00:00Z",
      "must be an ISO 8601 UTC instant ending in Z, such as 2026-01-31T18:00:00.000Z"
    ],
    [
      "startTime",
      "2030-01-01T18:00:00.1234Z",
      "must be an ISO 8601 UTC instant ending in Z, such as 2026-01-31T18:00:00.000Z"
    ],
    ["startTime", "2030-02-30T18:00:00.000Z", "is not a real calendar date-time"],
    ["startTime", "2030-01-01T24:00:00.000Z", "is not a real calendar date-time"],
    ["endTime", "2030-13-01T00:00:00.000Z", "is not a real calendar date-time"],
    ["questionType", 0, "must be an integer from 1 to 2147483647"],
    ["questionType", 2147483648, "must be an integer from 1 to 2147483647"],
    ["questionCount", 101, "must be an integer from 1 to 100"],
    ["questionCount", 0, "must be an integer from 1 to 100"],
    ["numberOfWinners", 0, "must be an integer from 1 to 1000000"],
    ["numberOfWinners", 2.5, "must be an integer"],
    ["sharingFormula", "proportional", "must be PROPORTIONAL or EQUAL"]
  ])("refuses %s = %j: %s", (field, value, message) => {
    const issues = issuesOf(ChallengeInput, { ...valid, [field]: value })
    assert.deepInclude(issues, { path: field, message })
    assert.isTrue(issues.every((issue) => issue.path === field))
  })

  it("reports an end not after the start at endTime", () => {
    assert.deepStrictEqual(issuesOf(ChallengeInput, { ...valid, endTime: valid.startTime }), [
      { path: "endTime", message: "must be after startTime" }
    ])
    assert.deepStrictEqual(issuesOf(ChallengeInput, { ...valid, endTime: "2030-01-01T17:59:59.999Z" }), [
      { path: "endTime", message: "must be after startTime" }
    ])
  })

  it("decodes any 2-decimal amount in range exactly from its JSON number", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 99_999_999_999_999n }), (cents) => {
        const text = `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`
        const input = decodeInput({ ...valid, prizeAmount: JSON.parse(text) })
        assert.strictEqual(BigDecimal.scale(input.prizeAmount, 2).value, cents)
        assert.isTrue(BigDecimal.equals(BigDecimal.scale(input.prizeAmount, 2), input.prizeAmount))
      }),
      { numRuns: 2000 }
    )
  })
})

describe("ChallengeIdFromString", () => {
  it("accepts plain positive integers only", () => {
    assert.strictEqual(Schema.decodeUnknownSync(ChallengeIdFromString)("42"), 42)
    for (const bad of ["0", "-1", "012", "1.0", "1e3", " 1", "0x10", "", "9007199254740992"]) {
      assert.isAbove(issuesOf(ChallengeIdFromString, bad).length, 0, bad)
    }
  })
})

describe("Challenge", () => {
  const stored = new Challenge({
    ...decodeInput(valid),
    id: ChallengeId.make(7),
    version: 2,
    createdAt: DateTime.makeUnsafe("2029-12-01T10:00:00.001Z"),
    updatedAt: DateTime.makeUnsafe("2029-12-02T10:00:00Z")
  })

  it("encodes to the API's JSON: number prize, ISO instants with milliseconds and Z", () => {
    assert.deepStrictEqual(Schema.encodeSync(Challenge)(stored), {
      // The valid body's fields, its title trimmed, with the stored ones beside them.
      ...valid,
      id: 7,
      title: "Friday night quiz",
      version: 2,
      createdAt: "2029-12-01T10:00:00.001Z",
      updatedAt: "2029-12-02T10:00:00.000Z"
    })
    assert.strictEqual(JSON.stringify(Schema.encodeSync(Challenge)(stored)).includes("1234567.89"), true)
  })

  it("has ended from its end time on", () => {
    assert.isFalse(stored.hasEndedAt(DateTime.makeUnsafe("2030-01-01T19:29:59.999Z")))
    assert.isTrue(stored.hasEndedAt(DateTime.makeUnsafe("2030-01-01T19:30:00.000Z")))
  })
})
