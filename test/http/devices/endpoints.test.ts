import { assert, describe } from "@effect/vitest"
import { MAX_ACTIVE_DEVICES } from "@payments-gaming/domain/devices"
import { freshToken } from "@payments-gaming/domain/test/support/devicesContract"
import { unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Logger } from "effect"
import { SqlClient } from "effect/sql"
import { request, type TestResponse, tokenFor, withTestServer } from "../../support/TestServer.ts"

// Every line the server logs, as JSON with its annotations and cause: the sweep below reads them all.
/** `device_token_reassigned_total{tokenType="FCM"}` on /metrics; 0 before the first move. */
const reassignedCount = Effect.map(request("/metrics"), (response) => {
  const line = response.text
    .split("\n")
    .find((text) => text.startsWith('device_token_reassigned_total{tokenType="FCM"}'))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
})

const logLines: Array<string> = []
const capture = Logger.map(Logger.formatJson, (line) => {
  logLines.push(line)
})

const PATH = "/v1/user/devices"
const DEVICE_KEYS = ["deviceId", "tokenType", "tokenLast8", "platform", "createdAt"]
const ENVELOPE_KEYS = ["timestamp", "status", "success", "message", "data"]
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const put = (token: string, body: unknown) => request(PATH, { method: "PUT", token, body })
const list = (token: string) => request(PATH, { token })
const remove = (token: string, deviceId: string) => request(`${PATH}/${deviceId}`, { method: "DELETE", token })

/** A 400 in the contract's envelope whose `errors` name `path`. */
const assertBadRequest = (response: TestResponse, path: string, label: string) => {
  assert.strictEqual(response.status, 400, `${label}: ${response.text}`)
  assert.deepStrictEqual(Object.keys(response.json).slice(0, 5), ENVELOPE_KEYS, label)
  assert.strictEqual(response.json.success, false)
  assert.isNull(response.json.data)
  const paths = response.json.errors.map((issue: { path: string }) => issue.path)
  assert.include(paths, path, `${label}: ${JSON.stringify(response.json.errors)}`)
}

describe("devices over HTTP", () => {
  withTestServer("120 seconds", [capture])((it) => {
    it.effect("201 for a new device, 200 for the same again (APNs hex in either case), listed, then removed", () =>
      Effect.gen(function* () {
        const auth = yield* tokenFor(unique("phone"))
        const token = freshToken("APNS")
        const before = Math.floor(Date.now() / 1000)
        const created = yield* put(auth, { tokenType: "APNS", token, platform: "ios" })
        assert.strictEqual(created.status, 201, created.text)
        assert.deepStrictEqual(Object.keys(created.json), ENVELOPE_KEYS)
        assert.strictEqual(created.json.status, 201)
        assert.isTrue(created.json.success)
        assert.match(created.json.timestamp, /^\d{13}$/)
        const device = created.json.data
        assert.deepStrictEqual(Object.keys(device), DEVICE_KEYS)
        assert.match(device.deviceId, UUID)
        assert.strictEqual(device.tokenType, "APNS")
        assert.strictEqual(device.tokenLast8, token.slice(-8))
        assert.strictEqual(device.platform, "ios")
        assert.match(device.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
        assert.approximately(Date.parse(device.createdAt) / 1000, before, 5)
        assert.notInclude(created.text, token)

        const again = yield* put(auth, { tokenType: "APNS", token: token.toUpperCase(), platform: "ios" })
        assert.strictEqual(again.status, 200, again.text)
        assert.strictEqual(again.json.status, 200)
        assert.deepStrictEqual(again.json.data, device)

        const listed = yield* list(auth)
        assert.strictEqual(listed.status, 200)
        assert.deepStrictEqual(Object.keys(listed.json), ENVELOPE_KEYS)
        assert.deepStrictEqual(listed.json.data, [device])
        assert.notInclude(listed.text, token)

        const removed = yield* remove(auth, device.deviceId)
        assert.strictEqual(removed.status, 200, removed.text)
        assert.deepStrictEqual(Object.keys(removed.json), ENVELOPE_KEYS)
        assert.isNull(removed.json.data)
        assert.deepStrictEqual((yield* list(auth)).json.data, [])
        assert.strictEqual((yield* remove(auth, device.deviceId)).status, 404)

        // Removed, then registered again: a device of theirs again, so 201.
        const back = yield* put(auth, { tokenType: "APNS", token })
        assert.strictEqual(back.status, 201)
        assert.isNull(back.json.data.platform)
      })
    )

    it.effect("a token another user registers moves to them; the first user's delete is then 404", () =>
      Effect.gen(function* () {
        const ada = yield* tokenFor(unique("ada"))
        const bola = yield* tokenFor(unique("bola"))
        const token = freshToken("FCM")
        const first = yield* put(ada, { tokenType: "FCM", token, platform: "android" })
        assert.strictEqual(first.status, 201)
        const before = yield* reassignedCount
        const moved = yield* put(bola, { tokenType: "FCM", token, platform: "android" })
        assert.strictEqual(moved.status, 201, moved.text)
        // A move is a warning naming both users and the device, and a count on /metrics (issue 34).
        assert.strictEqual(yield* reassignedCount, before + 1)
        const warning = logLines.find(
          (line) => line.includes("Device token moved to another user") && line.includes(moved.json.data.deviceId)
        )
        assert.isDefined(warning)
        assert.include(warning, '"level":"WARN"')
        assert.notInclude(warning, token)
        // The same token again by its new holder is no move.
        assert.strictEqual((yield* put(bola, { tokenType: "FCM", token })).status, 200)
        assert.strictEqual(yield* reassignedCount, before + 1)
        assert.deepStrictEqual((yield* list(ada)).json.data, [])
        assert.deepStrictEqual(
          (yield* list(bola)).json.data.map((device: { deviceId: string }) => device.deviceId),
          [moved.json.data.deviceId]
        )
        const refused = yield* remove(ada, moved.json.data.deviceId)
        assert.strictEqual(refused.status, 404)
        assert.strictEqual(refused.json.success, false)
        assert.isNull(refused.json.data)
        assert.strictEqual((yield* remove(bola, moved.json.data.deviceId)).status, 200)
      })
    )

    it.effect("another user's device and an unknown id are 404; a malformed id is 400; no token is 401", () =>
      Effect.gen(function* () {
        const owner = yield* tokenFor(unique("owner"))
        const intruder = yield* tokenFor(unique("intruder"))
        const device = (yield* put(owner, { tokenType: "FCM", token: freshToken("FCM") })).json.data
        const notTheirs = yield* remove(intruder, device.deviceId)
        assert.strictEqual(notTheirs.status, 404)
        assert.strictEqual(notTheirs.json.message, "Device not found")
        assert.strictEqual((yield* remove(owner, "00000000-0000-4000-8000-000000000000")).status, 404)
        assertBadRequest(yield* remove(owner, "not-a-uuid"), "deviceId", "malformed id")
        assert.deepStrictEqual(
          (yield* list(owner)).json.data.map((view: { deviceId: string }) => view.deviceId),
          [device.deviceId]
        )
        for (const [method, path] of [
          ["PUT", PATH],
          ["GET", PATH],
          ["DELETE", `${PATH}/${device.deviceId}`]
        ] as const) {
          const anonymous = yield* request(path, {
            method,
            ...(method === "PUT" ? { body: { tokenType: "FCM", token: freshToken("FCM") } } : {})
          })
          assert.strictEqual(anonymous.status, 401, `${method} ${path}`)
        }
      })
    )

    it.effect("every malformed body is a 400 in the envelope naming the field, and stores nothing", () =>
      Effect.gen(function* () {
        const userId = unique("bad-body")
        const auth = yield* tokenFor(userId)
        const fcm = freshToken("FCM")
        const apns = freshToken("APNS")
        const cases: ReadonlyArray<readonly [unknown, string, string]> = [
          [{ token: fcm }, "tokenType", "tokenType missing"],
          [{ tokenType: "HMS", token: fcm }, "tokenType", "unknown provider"],
          [{ tokenType: "fcm", token: fcm }, "tokenType", "provider in lower case"],
          [{ tokenType: "FCM" }, "token", "token missing"],
          [{ tokenType: "FCM", token: "" }, "token", "empty token"],
          [{ tokenType: "FCM", token: 12345 }, "token", "token not a string"],
          [{ tokenType: "FCM", token: "short-token" }, "token", "FCM token too short"],
          [{ tokenType: "FCM", token: `${fcm.slice(0, 80)} ${fcm.slice(81)}` }, "token", "FCM token with a space"],
          [{ tokenType: "FCM", token: "t".repeat(4097) }, "token", "token too long"],
          [{ tokenType: "APNS", token: apns.slice(1) }, "token", "APNs token of odd length"],
          [{ tokenType: "APNS", token: `${apns.slice(0, -1)}z` }, "token", "APNs token not hex"],
          [{ tokenType: "APNS", token: fcm }, "token", "an FCM token as APNs"],
          [{ tokenType: "FCM", token: fcm, platform: "" }, "platform", "empty platform"],
          [{ tokenType: "FCM", token: fcm, platform: 7 }, "platform", "platform not a string"],
          [{ tokenType: "FCM", token: fcm, platform: "x".repeat(33) }, "platform", "platform too long"]
        ]
        for (const [body, path, label] of cases) {
          const response = yield* put(auth, body)
          assertBadRequest(response, path, label)
          assert.notInclude(response.text, fcm)
          assert.notInclude(response.text, apns)
        }
        for (const rawBody of ["{", "[]", "null", '"FCM"']) {
          const response = yield* request(PATH, {
            method: "PUT",
            token: auth,
            rawBody,
            headers: { "content-type": "application/json" }
          })
          assert.strictEqual(response.status, 400, rawBody)
          assert.strictEqual(response.json.success, false, rawBody)
          assert.isNull(response.json.data, rawBody)
        }
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM user_devices WHERE user_id = ${userId}`
        assert.strictEqual(row?.n, 0)
      })
    )

    it.effect(
      "one device more than the limit is a 409 in the envelope; the same again is 200; a delete makes room",
      () =>
        Effect.gen(function* () {
          const userId = unique("many-devices")
          const auth = yield* tokenFor(userId)
          const devices: Array<{ readonly body: { tokenType: string; token: string }; readonly deviceId: string }> = []
          for (let index = 0; index < MAX_ACTIVE_DEVICES; index++) {
            const tokenType = index % 2 === 0 ? "FCM" : "APNS"
            const body = { tokenType, token: freshToken(tokenType) }
            const registered = yield* put(auth, body)
            assert.strictEqual(registered.status, 201, registered.text)
            devices.push({ body, deviceId: registered.json.data.deviceId })
          }
          const extra = { tokenType: "FCM", token: freshToken("FCM") }
          const refused = yield* put(auth, extra)
          assert.strictEqual(refused.status, 409, refused.text)
          assert.deepStrictEqual(Object.keys(refused.json), ENVELOPE_KEYS)
          assert.strictEqual(refused.json.status, 409)
          assert.strictEqual(refused.json.success, false)
          assert.isNull(refused.json.data)
          assert.match(refused.json.timestamp, /^\d{13}$/)
          assert.strictEqual(
            refused.json.message,
            `A user may register at most ${MAX_ACTIVE_DEVICES} devices; remove one first`
          )
          assert.notInclude(refused.text, extra.token.slice(-8))

          // The same token again at the limit adds no device: still a 200.
          const again = yield* put(auth, devices[5]!.body)
          assert.strictEqual(again.status, 200, again.text)
          assert.strictEqual(again.json.data.deviceId, devices[5]!.deviceId)

          assert.strictEqual((yield* remove(auth, devices[0]!.deviceId)).status, 200)
          const roomMade = yield* put(auth, extra)
          assert.strictEqual(roomMade.status, 201, roomMade.text)
          assert.strictEqual((yield* list(auth)).json.data.length, MAX_ACTIVE_DEVICES)
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM user_devices
          WHERE user_id = ${userId} AND active`
          assert.strictEqual(row?.n, MAX_ACTIVE_DEVICES)
        })
    )

    it.effect("the OpenAPI document shows the three routes, bearer-authenticated, with their statuses", () =>
      Effect.gen(function* () {
        const { paths } = (yield* request("/openapi.json")).json
        const operations = {
          put: paths[PATH]?.put,
          get: paths[PATH]?.get,
          delete: paths[`${PATH}/{deviceId}`]?.delete
        }
        const statuses = {
          put: ["200", "201", "400", "401", "409"],
          get: ["200", "401"],
          delete: ["200", "400", "401", "404"]
        }
        for (const [method, operation] of Object.entries(operations)) {
          assert.isDefined(operation, method)
          assert.deepStrictEqual(operation.security, [{ bearer: [] }], method)
          assert.includeMembers(Object.keys(operation.responses), statuses[method as keyof typeof statuses], method)
        }
      })
    )

    it.effect("no log line holds a device token, through registrations, a move and removals", () =>
      Effect.gen(function* () {
        const ada = yield* tokenFor(unique("log-ada"))
        const bola = yield* tokenFor(unique("log-bola"))
        const tokens = [freshToken("FCM"), freshToken("APNS")]
        const linesBefore = logLines.length
        for (const [index, token] of tokens.entries()) {
          const tokenType = index === 0 ? "FCM" : "APNS"
          const registered = yield* put(ada, { tokenType, token, platform: "web" })
          assert.strictEqual(registered.status, 201)
          assert.strictEqual((yield* put(ada, { tokenType, token, platform: "web" })).status, 200)
          const moved = yield* put(bola, { tokenType, token })
          assert.strictEqual(moved.status, 201)
          assert.strictEqual((yield* remove(ada, moved.json.data.deviceId)).status, 404)
          assert.strictEqual((yield* remove(bola, moved.json.data.deviceId)).status, 200)
          // A refused body quoting a token is logged by nobody either.
          assert.strictEqual((yield* put(bola, { tokenType: "APNS", token: `${token}!` })).status, 400)
        }
        const logs = logLines.slice(linesBefore).join("\n")
        // The moves were logged (so the sweep reads the lines that name devices), and none holds a token.
        assert.strictEqual((logs.match(/Device token moved to another user/g) ?? []).length, tokens.length)
        for (const token of tokens) {
          assert.notInclude(logs, token)
          assert.notInclude(logs, token.slice(0, 24))
          assert.notInclude(logs, token.toUpperCase().slice(0, 24))
        }
      })
    )
  })
})
