import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Tracer } from "effect"
import { request, TestServer, tokenFor } from "../../support/TestServer.ts"

// Every span the server's fibers would start, had tracing been left on (Server.ts turns it off).
const started: Array<string> = []
const recording = Tracer.make({
  span(options) {
    started.push(options.name)
    return new Tracer.NativeSpan(options)
  }
})

describe("tracing", () => {
  layer(TestServer().pipe(Layer.provide(Layer.succeed(Tracer.Tracer, recording))), {
    timeout: "60 seconds",
    excludeTestServices: true
  })((it) => {
    it.effect("a request through the service starts no span, not even for its SQL", () =>
      Effect.gen(function* () {
        started.length = 0
        const token = yield* tokenFor("tracing-user")
        const wheel = yield* request("/v1/spin-and-win", { token })
        assert.strictEqual(wheel.status, 200)
        const spin = yield* request("/v1/spin-and-win/spin", { method: "POST", token })
        assert.strictEqual(spin.status, 200)
        assert.deepStrictEqual(started, [])
      })
    )
  })
})
