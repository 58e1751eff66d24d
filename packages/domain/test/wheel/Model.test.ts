import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { defaultWheel, isDefaultWheel, makeSegment } from "../../src/wheel/DefaultWheel.ts"
import { cashLabel, coinLabel, groupThousands } from "../../src/wheel/Labels.ts"
import { segmentIdOf, toPublicSegment, Wheel, WheelDefinition } from "../../src/wheel/Model.ts"

describe("the default wheel", () => {
  it("has CONTRACT §3's eight segments in display order, in NGN", () => {
    const wheel = defaultWheel("NGN")
    assert.deepStrictEqual(
      wheel.segments.map((s) => [s.id, s.label, s.type, s.value, s.weight]),
      [
        ["seg-₦50", "₦50", "cash", 50, 10],
        ["seg-10coins", "10 coins", "coin", 10, 20],
        ["seg-₦100", "₦100", "cash", 100, 8],
        ["seg-20coins", "20 coins", "coin", 20, 15],
        ["seg-tryagain", "Try again", "cash", 0, 30],
        ["seg-₦500", "₦500", "cash", 500, 5],
        ["seg-50coins", "50 coins", "coin", 50, 10],
        ["seg-₦1,000", "₦1,000", "cash", 1000, 2]
      ]
    )
  })

  it("labels cash in the configured currency and keeps coins and the empty segment", () => {
    const labels = defaultWheel("USD").segments.map((s) => s.id)
    assert.deepStrictEqual(labels, [
      "seg-$50",
      "seg-10coins",
      "seg-$100",
      "seg-20coins",
      "seg-tryagain",
      "seg-$500",
      "seg-50coins",
      "seg-$1,000"
    ])
    assert.strictEqual(defaultWheel("KES").segments[7]?.label, "KSh 1,000")
    assert.strictEqual(defaultWheel("KES").segments[7]?.id, "seg-ksh1,000")
  })

  it("shows clients id, label, value, type in that key order and never the weight", () => {
    const [first] = defaultWheel("NGN").segments.map(toPublicSegment)
    assert.deepStrictEqual(Object.keys(first!), ["id", "label", "value", "type"])
    assert.strictEqual(JSON.stringify(first), `{"id":"seg-₦50","label":"₦50","value":50,"type":"cash"}`)
  })

  it("is recognised as the default only while unedited", () => {
    const wheel = new Wheel({ version: 3, ...defaultWheel("GBP") })
    assert.isTrue(isDefaultWheel(wheel))
    const edited = wheel.segments.with(0, makeSegment("GBP", { type: "cash", value: 50 }, 11))
    assert.isFalse(isDefaultWheel(new Wheel({ version: 3, currency: "GBP", segments: edited })))
  })
})

describe("wheel validation", () => {
  const decode = Schema.decodeUnknownExit(WheelDefinition)
  const encoded = () => Schema.encodeSync(WheelDefinition)(defaultWheel("NGN"))

  it("accepts the default wheel", () => {
    assert.isTrue(decode(encoded())._tag === "Success")
  })

  it("refuses seven segments, a duplicate id, an id not derived from the label, or no weight at all", () => {
    const base = encoded()
    const cases = [
      { ...base, segments: base.segments.slice(0, 7) },
      { ...base, segments: base.segments.with(1, base.segments[0]!) },
      { ...base, segments: base.segments.with(0, { ...base.segments[0]!, id: "seg-fifty" }) },
      { ...base, segments: base.segments.map((s) => ({ ...s, weight: 0 })) }
    ]
    for (const input of cases) assert.strictEqual(decode(input)._tag, "Failure")
  })
})

describe("labels", () => {
  it("groups thousands", () => {
    assert.deepStrictEqual([0, 7, 999, 1000, 12345, 1000000].map(groupThousands), [
      "0",
      "7",
      "999",
      "1,000",
      "12,345",
      "1,000,000"
    ])
  })

  it("groups any integer exactly as en-US does", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (value) => {
        assert.strictEqual(groupThousands(value), value.toLocaleString("en-US"))
      })
    )
  })

  it("writes symbols before the amount and counts coins", () => {
    assert.deepStrictEqual(
      [cashLabel("NGN", 1000), cashLabel("EUR", 5), cashLabel("CHF", 2500), coinLabel(1), coinLabel(20)],
      ["₦1,000", "€5", "CHF 2,500", "1 coin", "20 coins"]
    )
  })

  it("derives ids by lower-casing and removing every white space", () => {
    assert.deepStrictEqual(["Try again", "₦1,000", "10 coins", "Big\tWin\u00a0Now"].map(segmentIdOf), [
      "seg-tryagain",
      "seg-₦1,000",
      "seg-10coins",
      "seg-bigwinnow"
    ])
  })
})
