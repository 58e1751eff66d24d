import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { withPackLock } from "@payments-gaming/domain/test/support/PackLock"

const run = promisify(execFile)
const apiDir = resolve(import.meta.dirname, "../..")
const domainDir = resolve(apiDir, "../domain")
const effectVersion = JSON.parse(await readFile(join(apiDir, "package.json"), "utf8")).devDependencies.effect

/** `npm pack` of `dir` into `destination`, built first by its own prepack: its tarball and files. */
const pack = async (dir: string, destination: string) => {
  await rm(join(dir, "dist"), { recursive: true, force: true })
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", destination], { cwd: dir })
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  if (packed === undefined) throw new Error(`npm pack printed no package: ${stdout}`)
  return { tarball: join(destination, packed.filename), files: packed.files.map((file) => file.path) }
}

/**
 * What another service installs to call this one: the contract's tarball (built by its prepack, as
 * on a fresh clone) beside the domain's, whose schemas it uses, and `effect`. From plain JavaScript
 * in an empty project, it derives a client with HttpApiClient.make(Api), gives it a bearer token
 * through the contract's Authentication middleware, and reads a real HTTP server's answers through
 * it: the path, header and body shapes all come from the package.
 */
describe("the API package, packed", () => {
  let scratch = ""
  let files: ReadonlyArray<string> = []

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "api-pack-"))
    const domain = await withPackLock(() => pack(domainDir, scratch))
    const api = await pack(apiDir, scratch)
    files = api.files
    await writeFile(join(scratch, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }))
    await run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        domain.tarball,
        api.tarball,
        `effect@${effectVersion}`
      ],
      { cwd: scratch }
    )
  }, 180_000)

  afterAll(() => rm(scratch, { recursive: true, force: true }))

  it("ships the built JavaScript and declarations, no sources or tests, and names effect as a peer", async () => {
    for (const entry of ["dist/index.js", "dist/index.d.ts", "dist/Api.js", "dist/banking/WalletApi.d.ts"]) {
      assert.include(files, entry)
    }
    assert.isEmpty(files.filter((path) => path.startsWith("src/") || path.startsWith("test/")))
    const manifest = JSON.parse(
      await readFile(join(scratch, "node_modules/@payments-gaming/api/package.json"), "utf8")
    ) as { peerDependencies?: Record<string, string>; dependencies?: Record<string, string> }
    assert.isDefined(manifest.peerDependencies?.effect)
    assert.isUndefined(manifest.dependencies?.effect)
  })

  it("gives another service a typed client of this one, its credentials sent where the contract asks", async () => {
    const script = `
      import { createServer } from "node:http"
      import { Effect, Layer } from "effect"
      import { FetchHttpClient, HttpClientRequest } from "effect/http"
      import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
      import { Api, Authentication } from "@payments-gaming/api"

      // A stand-in for the service: what it saw, and the envelope the contract describes.
      const seen = []
      const server = createServer((request, response) => {
        seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization ?? null })
        const body = request.url === "/v1/wallet"
          ? { timestamp: "1", status: 200, success: true, message: "Wallet", data: { coinBalance: 7, balances: [{ currency: "NGN", available: "12.50" }] } }
          : { timestamp: "1", status: 200, success: true, message: "OK", data: { status: "ok" } }
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body))
      })
      await new Promise((done) => server.listen(0, "127.0.0.1", done))
      const baseUrl = "http://127.0.0.1:" + server.address().port

      const bearer = HttpApiMiddleware.layerClient(Authentication, ({ next, request }) =>
        next(HttpClientRequest.bearerToken(request, "a-token"))
      )
      const program = Effect.gen(function* () {
        const client = yield* HttpApiClient.make(Api, { baseUrl })
        const health = yield* client.system.healthz()
        const wallet = yield* client.wallet.wallet()
        return { health: health.data.status, coins: wallet.data.coinBalance, available: wallet.data.balances[0].available }
      })
      const result = await Effect.runPromise(program.pipe(Effect.provide(Layer.mergeAll(FetchHttpClient.layer, bearer))))
      server.close()
      console.log(JSON.stringify({ result, seen }))
    `
    await writeFile(join(scratch, "main.mjs"), script)
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: scratch })
    assert.deepStrictEqual(JSON.parse(stdout), {
      result: { health: "ok", coins: 7, available: "12.50" },
      seen: [
        // The probe is not authenticated by the contract: no token leaves for it.
        { method: "GET", url: "/healthz", authorization: null },
        { method: "GET", url: "/v1/wallet", authorization: "Bearer a-token" }
      ]
    })
  })
})
