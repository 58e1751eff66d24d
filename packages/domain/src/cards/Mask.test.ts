import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { lastFour, maskCardNumber, maskFromStored, storedPrefix, storedPrefixLength } from "./Mask.ts"

describe("Mask", () => {
  it("masks per CONTRACT §3 at every length", () => {
    assert.strictEqual(maskCardNumber("5399831234561237"), "5399 8312 **** 1237")
    assert.strictEqual(maskCardNumber("378282246310005"), "3782 82** **** 0005")
    assert.strictEqual(maskCardNumber("5061460410120223210"), "5061 4604 **** 3210")
    assert.strictEqual(maskCardNumber("501800000009"), "5018 00** **** 0009")
    assert.strictEqual(maskCardNumber("30569309025904"), "3056 93** **** 5904")
  })

  it("stores the first 8 digits from 16 digits up, the first 6 below", () => {
    assert.strictEqual(storedPrefixLength(12), 6)
    assert.strictEqual(storedPrefixLength(15), 6)
    assert.strictEqual(storedPrefixLength(16), 8)
    assert.strictEqual(storedPrefixLength(19), 8)
    assert.strictEqual(storedPrefix("378282246310005"), "378282")
    assert.strictEqual(storedPrefix("4242424242424242"), "42424242")
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
          assert.isAtLeast(digits.length - shown.length, 2)
          assert.isFalse(mask.replace(/ /g, "").includes(digits))
        }
      )
    )
  })
})
