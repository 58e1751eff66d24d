import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { make } from "../../src/auth/InternalKey.ts"

const KEY = "internal-key-0123456789"
const verifier = make(Redacted.make(KEY))

const refused = (presented: string | undefined) =>
  verifier.verify(presented === undefined ? undefined : Redacted.make(presented)).pipe(
    Effect.flip,
    Effect.tap((error) => Effect.sync(() => assert.strictEqual(error._tag, "NotAllowed")))
  )

describe("InternalKey", () => {
  it.effect("the configured key passes", () => verifier.verify(Redacted.make(KEY)))

  it.effect("a wrong, empty, longer or shorter key is NotAllowed", () =>
    Effect.gen(function* () {
      for (const presented of ["wrong-key", "", `${KEY}0`, KEY.slice(0, -1), KEY.toUpperCase(), ` ${KEY}`]) {
        yield* refused(presented)
      }
    })
  )

  it.effect("no key at all is NotAllowed", () => refused(undefined))

  it.effect("an empty configured key still refuses a missing key", () =>
    Effect.gen(function* () {
      const error = yield* make(Redacted.make("")).verify(undefined).pipe(Effect.flip)
      assert.strictEqual(error._tag, "NotAllowed")
    })
  )
})
