import { assert } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import type { UserId } from "../../src/auth/Model.ts"
import type { SpinAndWinService } from "../../src/wheel/SpinAndWinService.ts"

/**
 * `count` spins of one user at once: exactly one must win and every other be refused as
 * AlreadySpun. Returns the refusals, for checks of their own.
 */
export const concurrentSpins = (service: SpinAndWinService["Service"], userId: UserId, count = 20) =>
  Effect.gen(function* () {
    const exits = yield* Effect.forEach(Array.from({ length: count }), () => Effect.exit(service.spin(userId)), {
      concurrency: "unbounded"
    })
    const errors = exits.flatMap((exit) => Option.toArray(Exit.findErrorOption(exit)))
    assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
    assert.strictEqual(errors.length, count - 1)
    assert.isTrue(errors.every((error) => error._tag === "AlreadySpun"))
    return errors
  })
