import { existsSync } from "node:fs"
import { assert, describe } from "@effect/vitest"
import { Effect } from "effect"
import { type Browser, chromium } from "playwright-core"
import { baseUrl, tokenFor, withTestServer } from "../../support/TestServer.ts"

/**
 * Debian's Chromium (`apt-get install chromium`; .ci/run installs it when it is missing), driven by
 * playwright-core, which downloads no browser of its own. With CI=true a missing browser fails the
 * run; elsewhere the test is skipped with that reason, as the database tests do without PostgreSQL.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const available = existsSync(CHROMIUM)
if (!available && process.env.CI === "true")
  throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`)

// As root and on a machine with no way out: no sandbox, and none of Chromium's own calls home.
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

const launch = Effect.acquireRelease(
  Effect.promise(() => chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS })),
  (browser: Browser) => Effect.promise(() => browser.close())
)

const isLoopback = (url: string) => {
  const { protocol, hostname } = new URL(url)
  if (protocol === "data:" || protocol === "blob:" || protocol === "about:") return true
  return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]"
}

describe.skipIf(!available)(`/docs in a real browser (${CHROMIUM})`, () => {
  withTestServer("60 seconds")((it) => {
    it.effect(
      "offline, a token pasted into Test Request on GET /v1/wallet is sent as a bearer token and answered 200",
      () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const token = yield* tokenFor("docs-browser-user")
          const browser = yield* launch
          const context = yield* Effect.promise(() => browser.newContext())
          // Every request that would leave this machine is refused, and remembered.
          const outside: Array<string> = []
          yield* Effect.promise(() =>
            context.route("**/*", (route) => {
              const url = route.request().url()
              if (isLoopback(url)) return route.continue()
              outside.push(url)
              return route.abort("internetdisconnected")
            })
          )
          const page = yield* Effect.promise(() => context.newPage())
          // A missing control fails within the test's own time, naming it.
          page.setDefaultTimeout(15_000)
          const consoleErrors: Array<string> = []
          page.on("console", (message) => {
            if (message.type() === "error") consoleErrors.push(message.text())
          })
          page.on("pageerror", (error) => consoleErrors.push(error.message))

          yield* Effect.promise(() => page.goto(`${base}/docs#tag/wallet/GET/v1/wallet`))
          yield* Effect.promise(() => page.getByRole("button", { name: /Test Request.*get \/v1\/wallet\)/ }).click())
          const client = page.getByRole("dialog")
          // The bearer scheme is offered, not Username/Password: the token goes into its one field.
          yield* Effect.promise(() => client.getByPlaceholder("Token").fill(token))
          const [answer] = yield* Effect.promise(() =>
            Promise.all([
              page.waitForResponse((response) => new URL(response.url()).pathname === "/v1/wallet"),
              client.getByRole("button", { name: /^Send get request/ }).click()
            ])
          )
          assert.strictEqual(answer.request().headers().authorization, `Bearer ${token}`)
          assert.strictEqual(answer.status(), 200)
          const body = (yield* Effect.promise(() => answer.json())) as { data: { coinBalance: number } }
          assert.strictEqual(body.data.coinBalance, 0)
          // The client shows the answer's status.
          yield* Effect.promise(() => client.getByText("200 OK").first().waitFor())

          assert.deepStrictEqual(outside, [], "requests that would have left the machine")
          assert.deepStrictEqual(consoleErrors, [], "console errors")
        }).pipe(Effect.scoped),
      60_000
    )
  })
})
