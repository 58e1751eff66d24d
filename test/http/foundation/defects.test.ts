import { assert, describe } from "@effect/vitest"
import { Cause, Effect, Logger, References } from "effect"
import { SqlClient } from "effect/sql"
import { request, tokenFor, withTestServer } from "../../support/TestServer.ts"

interface Captured {
  readonly message: string
  readonly annotations: Record<string, unknown>
  readonly cause: string
}
const captured: Array<Captured> = []

const capture = Logger.make<unknown, void>(({ message, fiber, cause }) => {
  captured.push({
    message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
    annotations: { ...fiber.getRef(References.CurrentLogAnnotations) },
    cause: Cause.pretty(cause)
  })
})

describe("an unexpected failure inside a handler", () => {
  withTestServer("60 seconds", [capture])((it) => {
    it.effect("is a 500 with a generic message, and its cause is logged with the request id", () =>
      Effect.gen(function* () {
        // Break the database under a working endpoint: the repository's SQL error becomes a defect.
        const sql = yield* SqlClient.SqlClient
        yield* sql`DROP TABLE trivia_challenges`
        const response = yield* request("/v1/gaming/trivia/challenges", {
          token: yield* tokenFor("u1"),
          headers: { "x-request-id": "defect-req-1" }
        })
        assert.strictEqual(response.status, 500)
        assert.strictEqual(response.json.message, "Internal server error")
        assert.isNull(response.json.data)
        assert.notInclude(response.text, "trivia_challenges")
        assert.notInclude(response.text, "SqlError")
        const logged = captured.find(
          (entry) => entry.annotations.requestId === "defect-req-1" && entry.cause.includes("trivia_challenges")
        )
        assert.isDefined(logged, JSON.stringify(captured.map((entry) => entry.message)))
      })
    )
  })
})
