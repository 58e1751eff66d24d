import { assert, type Vitest } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import {
  type DeviceId,
  type DeviceRegistration,
  Devices,
  MAX_ACTIVE_DEVICES,
  type TokenType
} from "@payments-gaming/domain/devices"
import { Effect, Redacted } from "effect"
import { unique } from "./fixtures.ts"

type It = Vitest.MethodsNonLive<Devices>

let tokens = 0

/** A token of its provider's shape, never used before in this run: hex for APNs, FCM-like text else. */
export const freshToken = (tokenType: TokenType): string => {
  const serial = `${process.pid.toString(16)}${(tokens++).toString(16)}${Date.now().toString(16)}`
  return tokenType === "APNS" ? serial.padStart(64, "a") : `fcm${serial}:APA91b${"Xy-_0".repeat(28)}`.slice(0, 163)
}

export const registration = (
  tokenType: TokenType,
  token: string,
  platform: string | null = null
): DeviceRegistration => ({ tokenType, token: Redacted.make(token), platform })

export const user = (label: string) => unique(label) as UserId

const register = (userId: UserId, tokenType: TokenType, token: string, platform: string | null = null) =>
  Effect.flatMap(Devices, (devices) => devices.register(userId, registration(tokenType, token, platform)))

const listIds = (userId: UserId) =>
  Effect.flatMap(Devices, (devices) => devices.list(userId)).pipe(
    Effect.map((views) => views.map((view) => view.deviceId))
  )

/** Registers `count` new devices for `userId`, alternating providers; their ids and tokens in order. */
export const fill = (userId: UserId, count: number) =>
  Effect.gen(function* () {
    const added: Array<{ readonly deviceId: DeviceId; readonly tokenType: TokenType; readonly token: string }> = []
    for (let index = 0; index < count; index++) {
      const tokenType: TokenType = index % 2 === 0 ? "FCM" : "APNS"
      const token = freshToken(tokenType)
      const registered = yield* register(userId, tokenType, token)
      added.push({ deviceId: registered.device.deviceId, tokenType, token })
    }
    return added
  })

/**
 * The rules of `Devices`, run on every implementation (in memory in the domain's tests, on
 * PostgreSQL in the adapters'). Each test uses users and tokens of its own.
 */
export const devicesContract = (it: It) => {
  it.effect("a new token is created; the same token again from the same user is not, and keeps its id", () =>
    Effect.gen(function* () {
      const ada = user("ada")
      const token = freshToken("FCM")
      const first = yield* register(ada, "FCM", token, "android")
      assert.isTrue(first.created)
      assert.isNull(first.movedFrom)
      assert.strictEqual(first.device.tokenType, "FCM")
      assert.strictEqual(first.device.tokenLast8, token.slice(-8))
      assert.strictEqual(first.device.platform, "android")
      const again = yield* register(ada, "FCM", token, "web")
      assert.isFalse(again.created)
      assert.isNull(again.movedFrom)
      assert.strictEqual(again.device.deviceId, first.device.deviceId)
      assert.strictEqual(again.device.platform, "web")
      assert.deepStrictEqual(again.device.createdAt, first.device.createdAt)
      assert.deepStrictEqual(yield* listIds(ada), [first.device.deviceId])
    })
  )

  it.effect("the same text under the other provider is another device", () =>
    Effect.gen(function* () {
      const ada = user("ada")
      const token = freshToken("APNS")
      const apns = yield* register(ada, "APNS", token)
      const fcm = yield* register(ada, "FCM", token)
      assert.isTrue(fcm.created)
      assert.notStrictEqual(fcm.device.deviceId, apns.device.deviceId)
      assert.sameMembers([...(yield* listIds(ada))], [apns.device.deviceId, fcm.device.deviceId])
    })
  )

  it.effect("a token registered by another user moves to them: gone from the first user's list", () =>
    Effect.gen(function* () {
      const ada = user("ada")
      const bola = user("bola")
      const token = freshToken("APNS")
      const first = yield* register(ada, "APNS", token, "ios")
      const moved = yield* register(bola, "APNS", token, "ios")
      assert.isTrue(moved.created)
      assert.strictEqual(moved.movedFrom, ada)
      assert.deepStrictEqual(yield* listIds(ada), [])
      assert.deepStrictEqual(yield* listIds(bola), [moved.device.deviceId])
      // The first user can no longer remove it; its new owner can.
      const devices = yield* Devices
      const refused = yield* Effect.flip(devices.remove(ada, first.device.deviceId))
      assert.strictEqual(refused._tag, "DeviceNotFound")
      yield* devices.remove(bola, moved.device.deviceId)
      assert.deepStrictEqual(yield* listIds(bola), [])
    })
  )

  it.effect("a removed token registered again is active again, created; a second removal is not found", () =>
    Effect.gen(function* () {
      const devices = yield* Devices
      const ada = user("ada")
      const token = freshToken("FCM")
      const first = yield* register(ada, "FCM", token)
      yield* devices.remove(ada, first.device.deviceId)
      assert.deepStrictEqual(yield* listIds(ada), [])
      const twice = yield* Effect.flip(devices.remove(ada, first.device.deviceId))
      assert.strictEqual(twice._tag, "DeviceNotFound")
      const back = yield* register(ada, "FCM", token)
      assert.isTrue(back.created)
      assert.isNull(back.movedFrom)
      assert.deepStrictEqual(yield* listIds(ada), [back.device.deviceId])
    })
  )

  it.effect(
    "a deactivated token leaves the list; deactivating twice or an unknown id is a no-op; it comes back as new",
    () =>
      Effect.gen(function* () {
        const devices = yield* Devices
        const ada = user("ada")
        const kept = yield* register(ada, "APNS", freshToken("APNS"))
        const token = freshToken("APNS")
        const dead = yield* register(ada, "APNS", token)
        yield* devices.deactivate(dead.device.deviceId, "UNREGISTERED")
        yield* devices.deactivate(dead.device.deviceId, "UNREGISTERED")
        yield* devices.deactivate("00000000-0000-4000-8000-ffffffffffff" as DeviceId, "UNREGISTERED")
        assert.deepStrictEqual(yield* listIds(ada), [kept.device.deviceId])
        const refused = yield* Effect.flip(devices.remove(ada, dead.device.deviceId))
        assert.strictEqual(refused._tag, "DeviceNotFound")
        // Deactivated by the provider, then registered by another user: its token was erased with the
        // device (issue 34), so this is a new device of theirs, not a move from ada.
        const bola = user("bola")
        const back = yield* register(bola, "APNS", token)
        assert.isTrue(back.created)
        assert.isNull(back.movedFrom)
        assert.notStrictEqual(back.device.deviceId, dead.device.deviceId)
        assert.deepStrictEqual(yield* listIds(bola), [back.device.deviceId])
      })
  )

  it.effect("another user's device and an unknown id are not found, and nothing changes", () =>
    Effect.gen(function* () {
      const devices = yield* Devices
      const ada = user("ada")
      const mine = yield* register(ada, "FCM", freshToken("FCM"))
      const bola = user("bola")
      const notMine = yield* Effect.flip(devices.remove(bola, mine.device.deviceId))
      assert.strictEqual(notMine._tag, "DeviceNotFound")
      const unknown = yield* Effect.flip(devices.remove(ada, "00000000-0000-4000-8000-fffffffffffe" as DeviceId))
      assert.strictEqual(unknown._tag, "DeviceNotFound")
      assert.deepStrictEqual(yield* listIds(ada), [mine.device.deviceId])
    })
  )

  it.effect("a list holds the user's active devices only, oldest first", () =>
    Effect.gen(function* () {
      const ada = user("ada")
      const ids: Array<DeviceId> = []
      for (const tokenType of ["FCM", "APNS", "FCM"] as const) {
        ids.push((yield* register(ada, tokenType, freshToken(tokenType))).device.deviceId)
      }
      yield* register(user("bola"), "FCM", freshToken("FCM"))
      const listed = yield* listIds(ada)
      assert.sameMembers([...listed], ids)
      const devices = yield* Devices
      const views = yield* devices.list(ada)
      for (let index = 1; index < views.length; index++) {
        assert.isTrue(views[index - 1]!.createdAt.epochMilliseconds <= views[index]!.createdAt.epochMilliseconds)
      }
    })
  )
  it.effect("one active device more than the limit is refused; the same again is not; a removal makes room", () =>
    Effect.gen(function* () {
      const devices = yield* Devices
      const ada = user("full-ada")
      const added = yield* fill(ada, MAX_ACTIVE_DEVICES)
      const extra = freshToken("FCM")
      const refused = yield* Effect.flip(register(ada, "FCM", extra))
      assert.strictEqual(refused._tag, "DeviceLimitReached")
      assert.strictEqual(refused.limit, MAX_ACTIVE_DEVICES)
      assert.include(refused.message, `at most ${MAX_ACTIVE_DEVICES} devices`)
      assert.sameMembers(
        [...(yield* listIds(ada))],
        added.map((device) => device.deviceId)
      )

      // The same active token again adds nothing: allowed at the limit, platform updated.
      const last = added.at(-1)!
      const again = yield* register(ada, last.tokenType, last.token, "web")
      assert.isFalse(again.created)
      assert.strictEqual(again.device.deviceId, last.deviceId)
      assert.strictEqual(again.device.platform, "web")

      yield* devices.remove(ada, added[0]!.deviceId)
      const roomMade = yield* register(ada, "FCM", extra)
      assert.isTrue(roomMade.created)
      const listed = yield* listIds(ada)
      assert.strictEqual(listed.length, MAX_ACTIVE_DEVICES)
      assert.include([...listed], roomMade.device.deviceId)
      assert.strictEqual((yield* Effect.flip(register(ada, "FCM", freshToken("FCM"))))._tag, "DeviceLimitReached")
    })
  )

  it.effect("at the limit, a token moving in or a removed one coming back is refused too, and nothing moves", () =>
    Effect.gen(function* () {
      const devices = yield* Devices
      const ada = user("full-ada")
      const bola = user("full-bola")
      const [removed, ...rest] = yield* fill(ada, MAX_ACTIVE_DEVICES)
      yield* devices.remove(ada, removed!.deviceId)
      const kept = [...rest, ...(yield* fill(ada, 1))]
      const comeBack = yield* Effect.flip(register(ada, removed!.tokenType, removed!.token))
      assert.strictEqual(comeBack._tag, "DeviceLimitReached")

      const bolasToken = freshToken("APNS")
      const bolas = yield* register(bola, "APNS", bolasToken)
      const moveIn = yield* Effect.flip(register(ada, "APNS", bolasToken))
      assert.strictEqual(moveIn._tag, "DeviceLimitReached")
      // Still bola's: a refused move takes nothing from its owner.
      assert.deepStrictEqual(yield* listIds(bola), [bolas.device.deviceId])
      assert.sameMembers(
        [...(yield* listIds(ada))],
        kept.map((device) => device.deviceId)
      )

      // The limit is the user's own: bola, far below it, still takes one of ada's tokens, and the
      // token moving out leaves ada room for the removed one.
      const taken = yield* register(bola, kept[0]!.tokenType, kept[0]!.token)
      assert.strictEqual(taken.movedFrom, ada)
      assert.strictEqual((yield* listIds(ada)).length, MAX_ACTIVE_DEVICES - 1)
      const back = yield* register(ada, removed!.tokenType, removed!.token)
      assert.isTrue(back.created)
      assert.strictEqual((yield* listIds(ada)).length, MAX_ACTIVE_DEVICES)
    })
  )
}
