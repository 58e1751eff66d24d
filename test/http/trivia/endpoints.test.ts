import { assert, describe } from "@effect/vitest"
import { Effect } from "effect"
import { request, tokenFor, withTestServer } from "../../support/TestServer.ts"

const BASE = "/v1/gaming/trivia/challenges"
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/

const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString()
const challenge = (overrides: Record<string, unknown> = {}) => ({
  title: "Friday night quiz",
  prizeAmount: 15000.5,
  startTime: hoursFromNow(1),
  endTime: hoursFromNow(2),
  questionType: 1,
  questionCount: 10,
  numberOfWinners: 3,
  sharingFormula: "PROPORTIONAL",
  ...overrides
})

/** The instant a local date-time in Africa/Lagos (the suite's APP_TIMEZONE, UTC+1 all year) names. */
const fromLagos = (local: string) => Date.parse(`${local}Z`) - 3_600_000

const admin = tokenFor("admin-1", ["admin"])
const create = (body: unknown) => Effect.flatMap(admin, (token) => request(BASE, { method: "POST", body, token }))

describe("trivia challenges over HTTP", () => {
  withTestServer("60 seconds")((it) => {
    it.effect("PUT answers exactly the spec's envelope with a local timestamp", () =>
      Effect.gen(function* () {
        const created = yield* create(challenge())
        assert.strictEqual(created.status, 201)
        const id = created.json.data.id
        assert.isTrue(Number.isInteger(id))
        const sent = Date.now()
        const response = yield* request(`${BASE}/${id}`, {
          method: "PUT",
          token: yield* admin,
          body: challenge({ title: "Renamed quiz", sharingFormula: "EQUAL" })
        })
        const answered = Date.now()
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(Object.keys(response.json), ["timestamp", "status", "success", "message", "data"])
        assert.strictEqual(response.json.status, 200)
        assert.strictEqual(response.json.success, true)
        assert.strictEqual(response.json.message, "Challenge updated successfully")
        assert.strictEqual(response.json.data, `Challenge with id ${id} updated successfully`)
        assert.match(response.json.timestamp, LOCAL)
        // The time of the answer in Lagos: between sending and reading it (not "this minute", which
        // failed when the answer came at 18:58:59.99 and the check ran at 18:59:00.01).
        const at = fromLagos(response.json.timestamp)
        assert.isAtLeast(at, sent - 1, response.json.timestamp)
        assert.isAtMost(at, answered, response.json.timestamp)

        const fetched = yield* request(`${BASE}/${id}`, { token: yield* tokenFor("player-1") })
        assert.strictEqual(fetched.json.data.title, "Renamed quiz")
        assert.strictEqual(fetched.json.data.sharingFormula, "EQUAL")
        assert.strictEqual(fetched.json.data.prizeAmount, 15000.5)
      })
    )

    it.effect("404 for an unknown id, with the local timestamp on the error too", () =>
      Effect.gen(function* () {
        const response = yield* request(`${BASE}/987654`, { method: "PUT", token: yield* admin, body: challenge() })
        assert.strictEqual(response.status, 404)
        assert.strictEqual(response.json.success, false)
        assert.isNull(response.json.data)
        assert.match(response.json.timestamp, LOCAL)
      })
    )

    it.effect("400 for a non-integer id", () =>
      Effect.gen(function* () {
        for (const id of ["abc", "1.5", "-3", "0", "1e3"]) {
          const response = yield* request(`${BASE}/${id}`, { method: "PUT", token: yield* admin, body: challenge() })
          assert.strictEqual(response.status, 400, id)
          assert.strictEqual(response.json.errors[0].path, "challengeId")
          assert.match(response.json.timestamp, LOCAL)
        }
      })
    )

    it.effect("400 for each broken rule, with errors naming the field", () =>
      Effect.gen(function* () {
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ title: "   " }, "title"],
          [{ title: "x".repeat(201) }, "title"],
          [{ prizeAmount: -1 }, "prizeAmount"],
          [{ prizeAmount: 10.123 }, "prizeAmount"],
          [{ prizeAmount: "100" }, "prizeAmount"],
          [{ startTime: "2026-11-21T10:00:00" }, "startTime"],
          [{ endTime: "2026-11-21T10:00:00+01:00" }, "endTime"],
          [{ startTime: hoursFromNow(3), endTime: hoursFromNow(2) }, "endTime"],
          [{ questionType: 0 }, "questionType"],
          [{ questionType: 1.5 }, "questionType"],
          [{ questionCount: 0 }, "questionCount"],
          [{ questionCount: 101 }, "questionCount"],
          [{ numberOfWinners: 0 }, "numberOfWinners"],
          [{ sharingFormula: "WINNER_TAKES_ALL" }, "sharingFormula"],
          [{ title: undefined }, "title"]
        ]
        const created = yield* create(challenge())
        for (const [overrides, path] of cases) {
          const response = yield* request(`${BASE}/${created.json.data.id}`, {
            method: "PUT",
            token: yield* admin,
            body: challenge(overrides)
          })
          assert.strictEqual(response.status, 400, JSON.stringify(overrides))
          const paths = response.json.errors.map((issue: { path: string }) => issue.path)
          assert.include(paths, path, JSON.stringify(response.json.errors))
          assert.match(response.json.timestamp, LOCAL)
        }
      })
    )

    it.effect("409 when the stored challenge has already ended", () =>
      Effect.gen(function* () {
        const created = yield* create(challenge({ startTime: hoursFromNow(-3), endTime: hoursFromNow(-1) }))
        const response = yield* request(`${BASE}/${created.json.data.id}`, {
          method: "PUT",
          token: yield* admin,
          body: challenge()
        })
        assert.strictEqual(response.status, 409)
        assert.match(response.json.timestamp, LOCAL)
      })
    )

    it.effect("403 for a non-admin and 401 without a token", () =>
      Effect.gen(function* () {
        const created = yield* create(challenge())
        const path = `${BASE}/${created.json.data.id}`
        const player = yield* tokenFor("player-1")
        const forbidden = yield* request(path, { method: "PUT", token: player, body: challenge() })
        assert.strictEqual(forbidden.status, 403)
        assert.match(forbidden.json.timestamp, LOCAL)
        assert.strictEqual((yield* request(BASE, { method: "POST", token: player, body: challenge() })).status, 403)
        const anonymous = yield* request(path, { method: "PUT", body: challenge() })
        assert.strictEqual(anonymous.status, 401)
        assert.match(anonymous.json.timestamp, LOCAL)
      })
    )

    it.effect("GET list is paged and ordered by start time", () =>
      Effect.gen(function* () {
        const later = yield* create(
          challenge({ title: "later", startTime: hoursFromNow(50), endTime: hoursFromNow(51) })
        )
        const sooner = yield* create(
          challenge({ title: "sooner", startTime: hoursFromNow(40), endTime: hoursFromNow(41) })
        )
        const token = yield* tokenFor("player-1")
        const all = yield* request(`${BASE}?limit=200`, { token })
        const ids = all.json.data.map((c: { id: number }) => c.id)
        assert.isBelow(ids.indexOf(sooner.json.data.id), ids.indexOf(later.json.data.id))
        const starts = all.json.data.map((c: { startTime: string }) => c.startTime)
        assert.deepStrictEqual(starts, [...starts].sort())
        const page = yield* request(`${BASE}?limit=1&offset=1`, { token })
        assert.strictEqual(page.json.data.length, 1)
        assert.deepStrictEqual(page.json.data[0].id, ids[1])
        assert.strictEqual((yield* request(`${BASE}?limit=201`, { token })).status, 400)
        assert.strictEqual((yield* request(`${BASE}?offset=-1`, { token })).status, 400)
      })
    )

    it.effect("malformed JSON and a non-JSON body are rejected with the envelope", () =>
      Effect.gen(function* () {
        const token = yield* admin
        const post = (rawBody: string, contentType: string) =>
          request(BASE, { method: "POST", token, rawBody, headers: { "content-type": contentType } })
        const malformed = yield* post("{not json", "application/json")
        assert.strictEqual(malformed.status, 400)
        assert.match(malformed.json.timestamp, LOCAL)
        const text = yield* post("title=x", "text/plain")
        assert.strictEqual(text.status, 415)
        assert.strictEqual(text.json.success, false)
        const huge = yield* post(JSON.stringify(challenge({ title: "x".repeat(300 * 1024) })), "application/json")
        assert.strictEqual(huge.status, 413)
        assert.strictEqual(huge.json.status, 413)
      })
    )
  })
})
