import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import { unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Layer } from "effect"
import { type RequestOptions, request, TestServerOn, tokenFor } from "../../support/TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: the document's code takes the service's JSON as it comes
type VerifySpin = (input: { commitment: string; spinId: string; spin: any; audit: any; userId: string }) => string

/**
 * The verification code of docs/provably-fair.md, exactly as written there (the ```js block after
 * `<!-- verify-spin.mjs -->`), loaded as a module of its own: it can use nothing of ours.
 */
const verifySpinFromDoc = Effect.acquireRelease(
  Effect.promise(async () => {
    const doc = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "provably-fair.md"), "utf8")
    const code = /<!-- verify-spin\.mjs -->\s*```js\n([\s\S]*?)```/.exec(doc)?.[1]
    if (code === undefined) throw new Error("docs/provably-fair.md has no verify-spin.mjs block")
    const dir = mkdtempSync(join(tmpdir(), "verify-spin-"))
    writeFileSync(join(dir, "verify-spin.mjs"), code)
    const module = (await import(pathToFileURL(join(dir, "verify-spin.mjs")).href)) as { verifySpin: VerifySpin }
    return { verifySpin: module.verifySpin, dir }
  }),
  ({ dir }) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/**
 * Two servers on one database, their rounds calendar days in UTC−12 and UTC+14. At any instant the
 * eastern date is one or two days after the western one, so a round the western server is running
 * is already over for the eastern one: a real spin can be made, then revealed, within a test and on
 * the real clock, all through HTTP.
 */
const westAndEast = Effect.gen(function* () {
  const database = Layer.succeedContext(yield* Layer.build(TestDatabase))
  const start = (zone: string) =>
    Effect.map(
      Layer.build(Layer.fresh(TestServerOn({ WHEEL_TIMEZONE: zone })).pipe(Layer.provide(database))),
      (context) => (path: string, options?: RequestOptions) =>
        request(path, options).pipe(Effect.provideContext(context))
    )
  return { west: yield* start("Etc/GMT+12"), east: yield* start("Etc/GMT-14") }
})

describe("docs/provably-fair.md: a player verifies a spin from the service's answers alone", () => {
  it.live(
    "commitment, then a client seed, then the spin; the reveal verifies it with the document's code",
    () =>
      Effect.gen(function* () {
        const { verifySpin } = yield* verifySpinFromDoc
        const { west, east } = yield* westAndEast
        const userId = unique("verifier")
        const token = yield* tokenFor(userId)

        // 1. The round and its commitment, before anything else.
        const wheel = yield* west("/v1/spin-and-win", { token })
        const round = wheel.headers.get("x-spin-round")!
        const commitment = wheel.headers.get("x-round-commitment")!
        // 2. A client seed made up after seeing the commitment.
        const clientSeed = `after ${commitment.slice(0, 8)}: ${Math.random().toString(36).slice(2)}`
        const set = yield* west("/v1/spin-and-win/client-seed", { method: "PUT", token, body: { clientSeed } })
        assert.deepStrictEqual(set.json.data, { clientSeed, nonce: 0 })
        // 3. The spin.
        const answer = yield* west("/v1/spin-and-win/spin", { method: "POST", token })
        assert.strictEqual(answer.status, 200)
        assert.deepStrictEqual([answer.json.data.clientSeed, answer.json.data.nonce], [clientSeed, 0])
        assert.strictEqual(answer.headers.get("x-spin-round"), round)
        assert.strictEqual(answer.headers.get("x-round-commitment"), commitment)
        const spinId = answer.headers.get("x-spin-id")!
        assert.strictEqual((yield* west(`/v1/spin-and-win/rounds/${round}`, { token })).status, 409)

        // 4. The reveal, once the round is over (it is, for the eastern server).
        const revealed = yield* east(`/v1/spin-and-win/rounds/${round}`, { token })
        assert.strictEqual(revealed.status, 200, revealed.text)
        const audit = revealed.json.data
        const input = { commitment, spinId, spin: answer.json.data, audit, userId }
        assert.strictEqual(verifySpin(input), "verified")

        // The same code refuses what a dishonest server could have answered.
        const otherSeed = { ...input, spin: { ...answer.json.data, clientSeed: `${clientSeed}!` } }
        assert.strictEqual(verifySpin(otherSeed), "not the seed and nonce I was shown")
        const otherCommitment = { ...input, commitment: "0".repeat(64) }
        assert.strictEqual(verifySpin(otherCommitment), "the seed is not the committed one")
        const otherPrize = answer.json.data.segment.id === "seg-₦50" ? "seg-10coins" : "seg-₦50"
        const otherSegment = { ...input, spin: { ...answer.json.data, segment: { id: otherPrize } } }
        assert.match(verifySpin(otherSegment), /^draw \d+ gives seg-/)
        const forged = { ...input, audit: { ...audit, spins: [{ ...audit.spins[0], drawValue: -1 }] } }
        assert.match(verifySpin(forged), /^draw \d+ gives seg-/)
      }),
    60_000
  )
})
