import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Exit, Logger, Redacted, Schema } from "effect"
import type { UserId } from "../../src/auth/Model.ts"
import { Devices } from "../../src/devices/Devices.ts"
import { canonicalToken, hasTokenShape, RegisterDeviceRequest, registrationOf } from "../../src/devices/Model.ts"
import { layerMemory } from "../../src/devices/testing.ts"
import { devicesContract, freshToken, registration } from "../support/devicesContract.ts"

const decode = Schema.decodeUnknownExit(RegisterDeviceRequest)
const APNS_HEX = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
const FCM = `dQw4w9WgXcQ:APA91bH${"a1B2-c3_D4".repeat(14)}`

describe("Devices in memory", () => {
  layer(layerMemory)((it) => devicesContract(it))
})

describe("the device token rules", () => {
  it("takes the shapes the providers issue, APNs hex in either case", () => {
    assert.isTrue(hasTokenShape("APNS", APNS_HEX))
    assert.isTrue(hasTokenShape("APNS", APNS_HEX.toUpperCase()))
    assert.isTrue(hasTokenShape("APNS", "ab".repeat(100)))
    assert.isTrue(hasTokenShape("FCM", FCM))
    assert.isTrue(hasTokenShape("FCM", freshToken("FCM")))
    assert.isTrue(hasTokenShape("APNS", freshToken("APNS")))
  })

  it("refuses other shapes: short, odd, not hex, spaces, the other provider's", () => {
    for (const token of [APNS_HEX.slice(2), `${APNS_HEX}a`, `${APNS_HEX.slice(1)}g`, "ab".repeat(101), FCM, ""]) {
      assert.isFalse(hasTokenShape("APNS", token), token)
    }
    for (const token of [FCM.slice(0, 63), `${FCM} `, `${FCM.slice(0, 80)}/x`, `"${FCM}"`, "t".repeat(4097)]) {
      assert.isFalse(hasTokenShape("FCM", token), token)
    }
  })

  it("stores APNs tokens lowercase and FCM tokens as given", () => {
    assert.strictEqual(canonicalToken("APNS", APNS_HEX.toUpperCase()), APNS_HEX)
    assert.strictEqual(canonicalToken("FCM", FCM), FCM)
  })

  it("decodes a request into a redacted token; its errors name the field and never quote the token", () => {
    const decoded = decode({ tokenType: "APNS", token: APNS_HEX.toUpperCase(), platform: "ios" })
    assert.isTrue(Exit.isSuccess(decoded))
    if (Exit.isSuccess(decoded)) {
      assert.notInclude(String(decoded.value.token), APNS_HEX.slice(0, 16))
      const stored = registrationOf(decoded.value)
      assert.strictEqual(Redacted.value(stored.token), APNS_HEX)
      assert.strictEqual(stored.platform, "ios")
    }
    const withoutPlatform = decode({ tokenType: "FCM", token: FCM })
    assert.isTrue(Exit.isSuccess(withoutPlatform) && registrationOf(withoutPlatform.value).platform === null)
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ tokenType: "FCM", token: APNS_HEX.slice(10) }, "token"],
      [{ tokenType: "APNS", token: FCM }, "token"],
      [{ tokenType: "HMS", token: FCM }, "tokenType"],
      [{ token: FCM }, "tokenType"],
      [{ tokenType: "FCM" }, "token"],
      [{ tokenType: "FCM", token: 42 }, "token"],
      [{ tokenType: "FCM", token: FCM, platform: "i os" }, "platform"],
      [{ tokenType: "FCM", token: FCM, platform: "x".repeat(33) }, "platform"]
    ]
    for (const [input, path] of cases) {
      const exit = decode(input, { errors: "all" })
      assert.isTrue(Exit.isFailure(exit), JSON.stringify(input))
      const text = String(exit)
      assert.include(text, path)
      assert.notInclude(text, FCM.slice(0, 40))
      assert.notInclude(text, APNS_HEX.slice(10, 40))
    }
  })
})

describe("a move's log line", () => {
  it.effect("names both users and the device, never the token", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.map(Logger.formatJson, (line) => {
        lines.push(line)
      })
      const token = freshToken("FCM")
      const moved = yield* Effect.gen(function* () {
        const devices = yield* Devices
        yield* devices.register("log-ada" as UserId, registration("FCM", token))
        return yield* devices.register("log-bola" as UserId, registration("FCM", token))
      }).pipe(Effect.provide([layerMemory, Logger.layer([capture])]))
      const line = lines.find((text) => text.includes("moved"))
      assert.isDefined(line)
      for (const part of ["log-ada", "log-bola", moved.device.deviceId]) assert.include(line, part)
      for (const text of lines) assert.notInclude(text, token.slice(-8))
    })
  )
})
