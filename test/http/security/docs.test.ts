import { request as httpRequest } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { encodingFor } from "@payments-gaming/http/system/DocsRoute"
import { Effect } from "effect"
import { baseUrl, withTestServer } from "../../support/TestServer.ts"

interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

/** GET /docs with node:http, which (unlike fetch) hands over the bytes exactly as they were sent. */
const getDocs = (headers: Record<string, string>) =>
  Effect.gen(function* () {
    const url = new URL("/docs", yield* baseUrl)
    return yield* Effect.callback<RawAnswer>((resume) => {
      const outgoing = httpRequest(url, { headers }, (incoming) => {
        const chunks: Array<Buffer> = []
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
        incoming.on("end", () =>
          resume(
            Effect.succeed({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) })
          )
        )
      })
      outgoing.on("error", (error) => resume(Effect.die(error)))
      outgoing.end()
    })
  })

describe("GET /docs is compressed and cached (issue 34, finding 11)", () => {
  withTestServer("60 seconds")((it) => {
    it.effect("brotli or gzip when accepted, an ETag and Cache-Control, and 304 for the same page", () =>
      Effect.gen(function* () {
        const plain = yield* getDocs({ "accept-encoding": "identity" })
        assert.strictEqual(plain.status, 200)
        assert.isUndefined(plain.headers["content-encoding"])
        assert.include(plain.body.toString("utf8"), "api-reference")
        assert.isAbove(plain.body.length, 1_000_000)
        const etag = plain.headers.etag as string
        assert.match(etag, /^W\/"[A-Za-z0-9_-]{27}"$/)
        assert.strictEqual(plain.headers["cache-control"], "public, max-age=3600")
        assert.strictEqual(plain.headers.vary, "Accept-Encoding")
        assert.strictEqual(plain.headers["x-content-type-options"], "nosniff")

        const br = yield* getDocs({ "accept-encoding": "gzip, deflate, br" })
        assert.strictEqual(br.headers["content-encoding"], "br")
        assert.isBelow(br.body.length, plain.body.length / 3)
        assert.isTrue(brotliDecompressSync(br.body).equals(plain.body))
        assert.strictEqual(br.headers.etag, etag)

        const gz = yield* getDocs({ "accept-encoding": "gzip, br;q=0" })
        assert.strictEqual(gz.headers["content-encoding"], "gzip")
        assert.isBelow(gz.body.length, plain.body.length / 3)
        assert.isTrue(gunzipSync(gz.body).equals(plain.body))

        for (const tag of [etag, etag.replace(/^W\//, ""), `"other", ${etag}`]) {
          const again = yield* getDocs({ "accept-encoding": "br", "if-none-match": tag })
          assert.strictEqual(again.status, 304, tag)
          assert.strictEqual(again.body.length, 0)
          assert.strictEqual(again.headers.etag, etag)
        }
        const changed = yield* getDocs({ "accept-encoding": "br", "if-none-match": 'W/"another-page"' })
        assert.strictEqual(changed.status, 200)
      })
    )
  })

  it("reads Accept-Encoding as RFC 9110 writes it", () => {
    const cases: ReadonlyArray<readonly [string | undefined, string]> = [
      [undefined, "identity"],
      ["", "identity"],
      ["BR", "br"],
      ["gzip;q=0.5, br;q=1.0", "br"],
      ["br;q=0, gzip", "gzip"],
      ["br;q=0.000, gzip;q=0", "identity"],
      ["*", "gzip"],
      ["deflate", "identity"]
    ]
    for (const [header, expected] of cases) assert.strictEqual(encodingFor(header), expected, String(header))
  })
})
