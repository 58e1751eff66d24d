import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { lastFour, maskCardNumber, maskFromStored, storedPrefix, visiblePrefixLength } from "../../src/cards/Mask.ts"

describe("Mask", () => {
  it("masks per CONTRACT §3 at every length", () => {
    // number → mask; below 16 digits both middle groups are hidden.
    const masks: Record<string, string> = {
      "5399831234561237": "5399 8312 **** 1237",
      "5061460410120223210": "5061 4604 **** 3210",
      "378282246310005": "3782 **** **** 0005",
      "371449635398431": "3714 **** **** 8431",
      "501800000009": "5018 **** **** 0009",
      "30569309025904": "3056 **** **** 5904"
    }
    for (const [number, mask] of Object.entries(masks)) assert.strictEqual(maskCardNumber(number), mask)
  })

  it("shows and stores the first 8 digits from 16 digits up, the first 4 below", () => {
    for (const [length, shown] of [
      [12, 4],
      [15, 4],
      [16, 8],
      [19, 8]
    ]) {
      assert.strictEqual(visiblePrefixLength(length as number), shown)
    }
    const prefixes = [
      ["378282246310005", "3782"],
      ["501800000009", "5018"],
      ["4242424242424242", "42424242"],
      ["5061460410120223210", "50614604"]
    ]
    for (const [number, prefix] of prefixes) assert.strictEqual(storedPrefix(number as string), prefix)
    assert.strictEqual(lastFour("4242424242424242"), "4242")
  })

  it("the mask rebuilt from what is stored equals the mask of the number, and shows nothing else", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 19 }).map((d) => d.join("")),
        (digits) => {
          const mask = maskCardNumber(digits)
          assert.strictEqual(maskFromStored(storedPrefix(digits), lastFour(digits)), mask)
          const groups = mask.split(" ")
          assert.strictEqual(groups.length, 4)
          assert.strictEqual(groups[2], "****")
          const shown = mask.replace(/[^0-9]/g, "")
          assert.strictEqual(shown, storedPrefix(digits) + lastFour(digits))
          assert.strictEqual(shown.length, digits.length >= 16 ? 12 : 8)
          // At least 4 digits hidden at every length: no number is shown nearly whole.
          assert.isAtLeast(digits.length - shown.length, 4)
          assert.isFalse(mask.replace(/ /g, "").includes(digits))
        }
      )
    )
  })

  it("a prefix stored under the old rule (6 digits, short numbers) is shown as its first 4 only", () => {
    assert.strictEqual(maskFromStored("378282", "0005"), "3782 **** **** 0005")
  })
})
