import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe } from "@effect/vitest"
import { Api } from "@payments-gaming/api/Api"
import { Effect, type Schema } from "effect"
import { HttpApi } from "effect/http-api"
import { schemaSamples } from "../../fuzz/schemaSamples.ts"
import { request, TEST_ENV, type TestResponse, tokenFor, withTestServer } from "../../support/TestServer.ts"

type Needs = "anyone" | "user" | "admin" | "internal" | "provider"

/** The access table of docs/security.md: `METHOD path` → who may call it. */
const documented = (): ReadonlyMap<string, Needs> => {
  const doc = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "security.md"), "utf8")
  const table = doc.split("<!-- access-table")[1]?.split("<!-- /access-table -->")[0] ?? ""
  const rows = [...table.matchAll(/^\| (GET|POST|PUT|DELETE|PATCH) \| (\S+) \| (\w+) \|$/gm)]
  return new Map(rows.map((row) => [`${row[1]} ${row[2]}`, row[3] as Needs]))
}

interface Route {
  readonly name: string
  readonly method: string
  readonly path: string
}

/** Every endpoint of the API definition, with its parameters filled by valid values of their Schema. */
const routes = (): ReadonlyArray<Route> => {
  const found: Array<Route> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const params =
        endpoint.params === undefined
          ? undefined
          : schemaSamples(endpoint.params as Schema.Codec<unknown, unknown>, 1, 7)[0]
      found.push({
        name: `${endpoint.method} ${endpoint.path}`,
        method: endpoint.method,
        path: endpoint.path.replace(/:(\w+)/g, (_, key: string) =>
          encodeURIComponent(String((params as Record<string, unknown> | undefined)?.[key] ?? "1"))
        )
      })
    }
  })
  return found
}

const call = (route: Route, headers: Record<string, string>) =>
  request(route.path, {
    method: route.method,
    headers,
    ...(route.method === "GET" || route.method === "DELETE" ? {} : { body: {} })
  })

const refused = (response: TestResponse) => response.status === 401 || response.status === 403

describe("docs/security.md: who can call what", () => {
  withTestServer("60 seconds")((it) => {
    it.effect("every endpoint of the API has a row in the access table, and every row an endpoint", () =>
      Effect.sync(() => {
        const table = documented()
        const names = routes().map((route) => route.name)
        assert.deepStrictEqual(
          names.filter((name) => !table.has(name)),
          []
        )
        assert.deepStrictEqual(
          [...table.keys()].filter((name) => !names.includes(name)),
          []
        )
      })
    )

    it.effect("each endpoint refuses exactly the callers its row refuses", () =>
      Effect.gen(function* () {
        const table = documented()
        const user = { authorization: `Bearer ${yield* tokenFor("access-user")}` }
        const admin = { authorization: `Bearer ${yield* tokenFor("access-admin", ["admin"])}` }
        const internalKey = { "x-internal-key": TEST_ENV.INTERNAL_API_KEY }
        const wrong: Array<string> = []
        const expect = (route: Route, who: string, response: TestResponse, status: number | "allowed") => {
          const ok = status === "allowed" ? !refused(response) : response.status === status
          if (!ok) wrong.push(`${route.name} as ${who}: ${response.status}, expected ${status}`)
        }
        for (const route of routes()) {
          const needs = table.get(route.name)
          if (needs === undefined) continue
          const anyone = yield* call(route, {})
          if (needs === "anyone") {
            expect(route, "anyone", anyone, "allowed")
            continue
          }
          expect(route, "anyone", anyone, 401)
          switch (needs) {
            case "user":
              expect(route, "user", yield* call(route, user), "allowed")
              break
            case "admin":
              expect(route, "user", yield* call(route, user), 403)
              expect(route, "admin", yield* call(route, admin), "allowed")
              break
            case "internal":
              expect(route, "user without the key", yield* call(route, user), 403)
              expect(route, "key without a token", yield* call(route, internalKey), 401)
              expect(route, "user with the key", yield* call(route, { ...user, ...internalKey }), "allowed")
              break
            case "provider":
              // A bearer token, even an admin's, is no signature.
              expect(route, "admin", yield* call(route, admin), 401)
              break
          }
        }
        assert.deepStrictEqual(wrong, [])
      })
    )
  })
})
