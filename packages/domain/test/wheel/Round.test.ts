import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import { expiresIn, formatCountdown, isBefore, RoundId, roundEnd, roundOf, roundStart } from "../../src/wheel/Round.ts"

const at = (iso: string) => DateTime.makeUnsafe(iso)
const zone = (name: string) => DateTime.zoneMakeNamedUnsafe(name)
const hoursOf = (round: string, tz: string) => {
  const id = round as RoundId
  return (DateTime.toEpochMillis(roundEnd(id, zone(tz))) - DateTime.toEpochMillis(roundStart(id, zone(tz)))) / 3_600_000
}

describe("rounds", () => {
  it("are calendar days in the wheel's zone", () => {
    const lagos = zone("Africa/Lagos")
    assert.strictEqual(roundOf(at("2026-05-01T22:59:59.999Z"), lagos), "2026-05-01")
    assert.strictEqual(roundOf(at("2026-05-01T23:00:00.000Z"), lagos), "2026-05-02")
    assert.strictEqual(roundOf(at("2026-05-01T03:00:00Z"), zone("America/New_York")), "2026-04-30")
    assert.strictEqual(roundOf(at("2026-12-31T23:30:00Z"), lagos), "2027-01-01")
  })

  it("end at the next local midnight", () => {
    assert.strictEqual(
      DateTime.formatIso(roundEnd("2026-05-01" as RoundId, zone("Africa/Lagos"))),
      "2026-05-01T23:00:00.000Z"
    )
    assert.strictEqual(
      DateTime.formatIso(roundEnd("2026-12-31" as RoundId, zone("Africa/Lagos"))),
      "2026-12-31T23:00:00.000Z"
    )
  })

  it("last 23 hours when the clocks go forward and 25 when they go back", () => {
    assert.strictEqual(hoursOf("2026-03-29", "Europe/London"), 23)
    assert.strictEqual(hoursOf("2026-10-25", "Europe/London"), 25)
    assert.strictEqual(hoursOf("2026-03-08", "America/New_York"), 23)
    assert.strictEqual(hoursOf("2026-11-01", "America/New_York"), 25)
    assert.strictEqual(hoursOf("2026-06-15", "Europe/London"), 24)
    assert.strictEqual(hoursOf("2026-03-29", "Africa/Lagos"), 24)
  })

  it("start at 01:00 where a clock change skips midnight itself", () => {
    // Chile moves from 00:00 to 01:00 on the first Sunday of September.
    const santiago = zone("America/Santiago")
    assert.strictEqual(DateTime.formatIso(roundStart("2026-09-06" as RoundId, santiago)), "2026-09-06T04:00:00.000Z")
    assert.strictEqual(hoursOf("2026-09-05", "America/Santiago"), 24)
    assert.strictEqual(hoursOf("2026-09-06", "America/Santiago"), 23)
  })

  it("count down to the round's end in HH:MM:SS", () => {
    const lagos = zone("Africa/Lagos")
    const countdowns = [
      ["2026-05-01T12:00:00Z", "11:00:00"],
      ["2026-05-01T22:59:59Z", "00:00:01"],
      ["2026-05-01T23:00:00Z", "24:00:00"],
      ["2026-05-01T09:14:35.250Z", "13:45:25"]
    ] as const
    for (const [instant, left] of countdowns) assert.strictEqual(expiresIn(at(instant), lagos), left)
  })

  it("count down correctly across a daylight-saving change", () => {
    const london = zone("Europe/London")
    // 29 March 2026: 00:30 GMT, the clocks jump from 01:00 to 02:00; midnight is 23:00Z.
    assert.strictEqual(expiresIn(at("2026-03-29T00:30:00Z"), london), "22:30:00")
    assert.strictEqual(expiresIn(at("2026-03-29T00:00:00Z"), london), "23:00:00")
    // 25 October 2026: the day starts at 23:00Z on the 24th (BST) and ends at 00:00Z on the 26th.
    assert.strictEqual(expiresIn(at("2026-10-24T23:00:00Z"), london), "25:00:00")
    assert.strictEqual(expiresIn(at("2026-10-25T00:30:00Z"), london), "23:30:00")
    const newYork = zone("America/New_York")
    assert.strictEqual(expiresIn(at("2026-11-01T04:00:00Z"), newYork), "25:00:00")
    assert.strictEqual(expiresIn(at("2026-03-08T05:00:00Z"), newYork), "23:00:00")
  })

  it("format countdowns rounded up to the second", () => {
    assert.deepStrictEqual([0, 1, 999, 1000, 1001, 59_999, 3_600_000, 90_000_000, -5].map(formatCountdown), [
      "00:00:00",
      "00:00:01",
      "00:00:01",
      "00:00:01",
      "00:00:02",
      "00:01:00",
      "01:00:00",
      "25:00:00",
      "00:00:00"
    ])
  })

  it("have ids that are real dates and sort in time order", () => {
    const decode = Schema.decodeUnknownExit(RoundId)
    assert.strictEqual(decode("2028-02-29")._tag, "Success")
    for (const bad of ["2026-02-29", "2026-13-01", "2026-1-01", "20260101", "2026-01-01T00:00", ""]) {
      assert.strictEqual(decode(bad)._tag, "Failure", bad)
    }
    assert.isTrue(isBefore("2026-09-30" as RoundId, "2026-10-01" as RoundId))
    assert.isFalse(isBefore("2026-10-01" as RoundId, "2026-10-01" as RoundId))
  })
})
