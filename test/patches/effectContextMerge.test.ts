// The patch we carry on Effect (patches/effect+4.1.0.patch, docs/effect-patch.md): Context.merge
// puts `that` on top of `self` instead of copying both into a new map. HttpApiBuilder merges its
// group's whole build context into every request's context, so unpatched that was two ~75-entry
// Maps per request (issue 35).
//
// What must hold: the patch is applied to the Effect installed (npm ci's postinstall), it is the
// version the patch was written for, merge means exactly what it meant (a model-based property
// test over add, merge, pick, omit and reads), the fiber-cached keys (log levels) still follow the
// merged context, and a merge of a request's context copies no Map.
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Logger, References } from "effect"
import fc from "fast-check"

const root = join(import.meta.dirname, "..", "..")
const effectDir = join(root, "node_modules", "effect")
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex")

describe("the Effect patch (Context.merge without copies)", () => {
  it("is applied to the installed Effect, which is the version it was written for", () => {
    const patches = readdirSync(join(root, "patches")).filter((name) => name.startsWith("effect+"))
    assert.deepStrictEqual(patches, ["effect+4.1.0.patch"])
    const installed = JSON.parse(readFileSync(join(effectDir, "package.json"), "utf8")).version
    assert.strictEqual(installed, "4.1.0", "Effect moved: re-check the patch against the new Context.merge")
    const source = readFileSync(join(effectDir, "dist", "Context.js"), "utf8")
    assert.include(source, "payments-gaming patch", "patches/effect+4.1.0.patch is not applied: run npm ci")
  })

  // When Effect changes either file, this fails: the patch may no longer apply, or no longer be
  // needed (HttpApiBuilder may stop merging per request). Re-measure before updating the hashes.
  it("the patched Context and the HttpApiBuilder that merges per request are the files it was measured on", () => {
    const builder = readFileSync(join(effectDir, "dist", "http-api", "HttpApiBuilder.js"), "utf8")
    assert.include(builder, "Effect.provideContext(context));", "HttpApiBuilder no longer merges per request")
    assert.deepStrictEqual(
      {
        context: sha256(join(effectDir, "dist", "Context.js")),
        builder: sha256(join(effectDir, "dist", "http-api", "HttpApiBuilder.js"))
      },
      {
        context: "eb4cbe67105fe977817a169c0e43b59c681e65c9cf2eb36b1d922a8c97c646c6",
        builder: "57b9aa7136e65ab72563e24b50b4084227e511a49be80ae5aa2e4d10d8f91274"
      }
    )
  })

  const keys = Array.from({ length: 10 }, (_, i) => Context.Service<number>(`test/patch/K${i}`))
  type Model = ReadonlyMap<string, number>
  type Step =
    | { readonly op: "add"; readonly key: number; readonly value: number }
    | { readonly op: "merge"; readonly other: number; readonly flip: boolean }
    | { readonly op: "pick" | "omit"; readonly keys: ReadonlyArray<number> }
    | { readonly op: "read"; readonly key: number; readonly times: number }
    | { readonly op: "flatten" }
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ op: fc.constant("add" as const), key: fc.nat(9), value: fc.integer() }),
    fc.record({ op: fc.constant("merge" as const), other: fc.nat(), flip: fc.boolean() }),
    fc.record({ op: fc.constantFrom("pick" as const, "omit" as const), keys: fc.array(fc.nat(9), { maxLength: 3 }) }),
    // 300 reads pass the patch's threshold for copying a long-lived merged context flat.
    fc.record({ op: fc.constant("read" as const), key: fc.nat(9), times: fc.oneof(fc.nat(20), fc.constant(300)) }),
    fc.record({ op: fc.constant("flatten" as const) })
  )

  /** Every way of reading a context agrees with the model. */
  const agrees = (context: Context.Context<never>, model: Model) => {
    for (const key of keys) {
      const read = Context.getOption(context as Context.Context<unknown>, key)
      assert.strictEqual(read._tag === "Some" ? read.value : undefined, model.get(key.key), key.key)
    }
    assert.deepStrictEqual(new Map(context.mapUnsafe), new Map(model))
  }

  it("merge, add, pick and omit mean what they meant: `that` wins, nothing is lost, at any maxDepth", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.nat(10), (steps, maxDepth) => {
        const made: Array<readonly [Context.Context<never>, Model]> = [
          [Context.makeUnsafe(new Map(), { maxDepth }), new Map()]
        ]
        for (const s of steps) {
          const [context, model] = made[made.length - 1]!
          let next: readonly [Context.Context<never>, Model]
          switch (s.op) {
            case "add": {
              const key = keys[s.key]!
              next = [
                Context.add(context, key, s.value) as Context.Context<never>,
                new Map(model).set(key.key, s.value)
              ]
              break
            }
            case "merge": {
              const [other, otherModel] = made[s.other % made.length]!
              const [self, selfModel, that, thatModel] = s.flip
                ? [other, otherModel, context, model]
                : [context, model, other, otherModel]
              next = [Context.merge(self, that), new Map([...selfModel, ...thatModel])]
              break
            }
            case "pick":
            case "omit": {
              const chosen = s.keys.map((i) => keys[i]!)
              const names = new Set(chosen.map((key) => key.key))
              const kept = [...model].filter(([name]) => names.has(name) === (s.op === "pick"))
              next = [(s.op === "pick" ? Context.pick(...chosen) : Context.omit(...chosen))(context), new Map(kept)]
              break
            }
            case "read":
              for (let i = 0; i < s.times; i++) Context.getOption(context as Context.Context<unknown>, keys[s.key]!)
              next = [context, model]
              break
            case "flatten":
              void context.mapUnsafe
              next = [context, model]
              break
          }
          agrees(next[0], next[1])
          made.push(next)
        }
        // What was made earlier is unchanged by everything made from it since.
        for (const [context, model] of made) agrees(context, model)
      }),
      { numRuns: 3000 }
    )
  })

  // A fiber caches what it reads of the log levels, the tracer and the scheduler per cache root, and
  // merges of one handler context into requests' contexts share one: the cache must still follow
  // each request. Run as HttpApiBuilder does: the request's context is the fiber's, the handlers'
  // is provided (merged) inside it.
  it.effect("the log level the handlers provide, or a request's own, is the one the fiber logs at", () =>
    Effect.gen(function* () {
      const lines: Array<unknown> = []
      const capture = Logger.layer([Logger.make(({ message }) => lines.push(message))])
      const server = Context.make(References.MinimumLogLevel, "Info")
      const request = (n: number) => Context.add(server, keys[0]!, n)
      const debugging = Context.make(References.MinimumLogLevel, "Debug")
      const silent = Context.make(keys[1]!, 1)
      const handle = (requestContext: Context.Context<never>, handlers: Context.Context<never>) =>
        Effect.logDebug("seen").pipe(
          Effect.provideContext(handlers),
          Effect.provideContext(requestContext),
          Effect.provide(capture)
        )

      yield* handle(request(1), debugging)
      yield* handle(request(2), debugging)
      assert.strictEqual(lines.length, 2)
      // Handlers that say nothing of the level: the request's own Info holds; then a request that
      // sets Debug itself, below the same handlers, logs (a cache shared by `that` alone would not).
      yield* handle(request(3), silent)
      assert.strictEqual(lines.length, 2)
      yield* handle(Context.add(request(4), References.MinimumLogLevel, "Debug"), silent)
      assert.strictEqual(lines.length, 3)
    })
  )

  it("merging a handler context into a request's copies no Map", () => {
    const handlers = Context.makeUnsafe(new Map(keys.slice(0, 6).map((key, i) => [key.key, i])))
    let request = Context.makeUnsafe(new Map(keys.slice(4).map((key, i) => [key.key, 100 + i])))
    for (let i = 0; i < 5; i++) request = Context.add(request, keys[9]!, 200 + i)
    void Context.merge(request, handlers) // the handler context is flattened once, on first use

    const Original = globalThis.Map
    let made = 0
    globalThis.Map = class extends Original<unknown, unknown> {
      constructor(entries?: Iterable<readonly [unknown, unknown]> | null) {
        super(entries)
        made++
      }
    } as MapConstructor
    let merged: Context.Context<never>
    try {
      merged = Context.merge(request, handlers)
      Context.getOption(merged as Context.Context<unknown>, keys[9]!)
    } finally {
      globalThis.Map = Original
    }
    assert.strictEqual(made, 0)
    assert.strictEqual(Context.get(merged as Context.Context<unknown>, keys[5]!), 5)
    assert.strictEqual(Context.get(merged as Context.Context<unknown>, keys[9]!), 204)
  })
})
