import { assert, describe, it } from "@effect/vitest"
import { expiresIn, makeRoundClock, roundEnd, roundOf, roundStart } from "@payments-gaming/domain/wheel"
import { DateTime } from "effect"
import fc from "fast-check"

// Zones with 23- and 25-hour days, a half-hour change (Lord Howe), a change that skips midnight
// itself (Santiago), a skipped calendar day (Apia, 30 December 2011) and none at all (Lagos).
const ZONES = [
  "Africa/Lagos",
  "Europe/London",
  "America/New_York",
  "America/Santiago",
  "Australia/Lord_Howe",
  "Pacific/Apia",
  "Asia/Kolkata"
] as const

const FROM = Date.parse("2011-01-01T00:00:00Z")
const TO = Date.parse("2031-01-01T00:00:00Z")

const reference = (millis: number, zone: DateTime.TimeZone) => {
  const at = DateTime.makeUnsafe(millis)
  return { round: roundOf(at, zone), expiresIn: expiresIn(at, zone) }
}

/** `reference` with the round's bounds, which a spin's write is checked against. */
const referenceWithBounds = (millis: number, zone: DateTime.TimeZone) => {
  const { round, expiresIn } = reference(millis, zone)
  return {
    round,
    expiresIn,
    startMillis: DateTime.toEpochMillis(roundStart(round, zone)),
    endMillis: DateTime.toEpochMillis(roundEnd(round, zone))
  }
}

describe("makeRoundClock", () => {
  it("agrees with roundOf and expiresIn for a clock walking forward through every zone's changes", () => {
    // Two years of every zone's changes, Apia's skipped day among them, in 53-minute steps (plus a
    // millisecond) that cross every hour and day boundary at a varying phase.
    const windows = [
      [Date.parse("2011-06-01T00:00:00Z"), Date.parse("2012-06-01T00:00:00Z")],
      [Date.parse("2026-01-01T00:00:00Z"), Date.parse("2027-01-01T00:00:00Z")]
    ] as const
    for (const name of ZONES) {
      const zone = DateTime.zoneMakeNamedUnsafe(name)
      const roundAt = makeRoundClock(zone)
      for (const [from, to] of windows) {
        for (let millis = from; millis < to; millis += 53 * 60_000 + 1) {
          const expected = reference(millis, zone)
          const actual = roundAt(DateTime.makeUnsafe(millis))
          if (actual.round !== expected.round || actual.expiresIn !== expected.expiresIn) {
            assert.fail(`${name} at ${new Date(millis).toISOString()}: ${JSON.stringify({ actual, expected })}`)
          }
        }
      }
    }
  })

  it("agrees at each side of a round's end, and when the clock jumps back and forth", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.array(fc.tuple(fc.integer({ min: FROM, max: TO }), fc.integer({ min: -2000, max: 2000 })), {
          minLength: 1,
          maxLength: 40
        }),
        (name, instants) => {
          const zone = DateTime.zoneMakeNamedUnsafe(name)
          const roundAt = makeRoundClock(zone)
          // Instants in random order: each one may jump back to an earlier round or ahead to a later one.
          for (const [base, jitter] of instants) {
            const end = DateTime.toEpochMillis(roundEnd(roundOf(DateTime.makeUnsafe(base), zone), zone))
            for (const millis of [base, end - 1, end, end + jitter]) {
              assert.deepStrictEqual(
                roundAt(DateTime.makeUnsafe(millis)),
                referenceWithBounds(millis, zone),
                `${name} ${millis}`
              )
            }
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("hits the exact round boundaries of a 25-hour and a 23-hour day", () => {
    const london = DateTime.zoneMakeNamedUnsafe("Europe/London")
    const roundAt = makeRoundClock(london)
    const at = (iso: string) => {
      const { round, expiresIn } = roundAt(DateTime.makeUnsafe(iso))
      return { round, expiresIn }
    }
    assert.deepStrictEqual(at("2026-10-24T22:59:59.999Z"), { round: "2026-10-24", expiresIn: "00:00:01" })
    assert.deepStrictEqual(at("2026-10-24T23:00:00.000Z"), { round: "2026-10-25", expiresIn: "25:00:00" })
    assert.deepStrictEqual(at("2026-10-25T23:59:59.999Z"), { round: "2026-10-25", expiresIn: "00:00:01" })
    assert.deepStrictEqual(at("2026-10-26T00:00:00.000Z"), { round: "2026-10-26", expiresIn: "24:00:00" })
    assert.deepStrictEqual(at("2026-03-29T00:00:00.000Z"), { round: "2026-03-29", expiresIn: "23:00:00" })
    assert.deepStrictEqual(at("2026-03-28T12:00:00.000Z"), { round: "2026-03-28", expiresIn: "12:00:00" })
  })
})
