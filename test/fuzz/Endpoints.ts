import { SetClientSeed } from "@payments-gaming/api/wheel/WheelApi"
import { LinkVirtualAccountRequest, RecordTransferRequest } from "@payments-gaming/domain/banking"
import { NewCard } from "@payments-gaming/domain/cards"
import { RegisterDeviceRequest } from "@payments-gaming/domain/devices"
import { PushMessage } from "@payments-gaming/domain/push"
import { ChallengeInput } from "@payments-gaming/domain/trivia"
import fc from "fast-check"
import type { AuthKind } from "./HeaderCase.ts"
import { junkQuery, junkSegment } from "./PathCase.ts"
import { schemaSamples } from "./schemaSamples.ts"

/** One endpoint of Api.ts as the fuzzer calls it. */
export interface Endpoint {
  readonly name: string
  readonly method: string
  readonly auth: AuthKind
  /** Path and query; junk in the path parameters and the query. */
  readonly path: fc.Arbitrary<string>
  /** Valid JSON bodies to mutate; undefined where the endpoint reads no body. */
  readonly bodies: ReadonlyArray<unknown> | undefined
  /** Bodies derived from the endpoint's payload Schema, to mutate as well. */
  readonly derived?: ReadonlyArray<unknown>
}

/** What the server already holds when fuzzing starts, so generated paths can name real things. */
export interface Fixtures {
  readonly liveChallengeIds: ReadonlyArray<number>
  readonly endedChallengeId: number
  readonly cardIds: ReadonlyArray<string>
  readonly accountNumbers: ReadonlyArray<string>
}

const DAY = 86_400_000
const iso = (offsetMillis: number) => new Date(Date.now() + offsetMillis).toISOString()
const date = (offsetMillis: number) => iso(offsetMillis).slice(0, 10)

export const challengeBody = (title = "Friday quiz") => ({
  title,
  prizeAmount: 1000.5,
  startTime: iso(DAY),
  endTime: iso(2 * DAY),
  questionType: 1,
  questionCount: 10,
  numberOfWinners: 3,
  sharingFormula: "PROPORTIONAL"
})

const year = new Date().getUTCFullYear()
export const cardBody = (cardNumber: string, cvv = "123") => ({
  cardholderName: "Ada Okafor",
  cardNumber,
  expiryMonth: 12,
  expiryYear: year + 2,
  cvv
})

const CARD_NUMBERS = [
  ["4242424242424242", "123"],
  ["4111111111111111", "123"],
  ["5555555555554444", "123"],
  ["378282246310005", "1234"],
  ["6011111111111117", "123"],
  ["5061460410120223210", "123"]
] as const

const withQuery = (path: fc.Arbitrary<string>, query = junkQuery) =>
  fc.tuple(path, query).map(([base, search]) => `${base}${search}`)

const fixed = (path: string) => withQuery(fc.constant(path))

/** The statement's query: its filters and cursor, good and bad, or any junk query. */
const statementQuery = fc.oneof(
  { weight: 2, arbitrary: junkQuery },
  {
    weight: 5,
    arbitrary: fc
      .record(
        {
          limit: fc.constantFrom("1", "3", "200", "0", "201", "-1", "abc"),
          cursor: fc.oneof(
            // Well formed, but sealed for nobody (issue 34: a 400 from the service, not the schema).
            fc.constantFrom("A".repeat(22), "_".repeat(22)),
            fc.constantFrom("", "junk", "MA", "LTE", "A".repeat(300)),
            fc.string({ maxLength: 12 })
          ),
          currency: fc.constantFrom("NGN", "COIN", "USD", "ngn", "XYZ", ""),
          from: fc.constantFrom("2026-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01", "now", "9".repeat(20)),
          to: fc.constantFrom("2027-01-01T00:00:00+01:00", "2025-01-01T00:00:00Z", "2026-01-01T00:00:00")
        },
        { requiredKeys: [] }
      )
      .map((query) => `?${new URLSearchParams(query).toString()}`)
  }
)

/** The reconciliations' listing: its limit and opaque cursor, good and bad, or any junk query. */
const reconciliationsQuery = fc.oneof(
  { weight: 2, arbitrary: junkQuery },
  {
    weight: 3,
    arbitrary: fc
      .record(
        {
          limit: fc.constantFrom("1", "200", "0", "201", "abc"),
          cursor: fc.oneof(fc.constantFrom("", "junk", "MA", "A".repeat(300)), fc.string({ maxLength: 12 }))
        },
        { requiredKeys: [] }
      )
      .map((query) => `?${new URLSearchParams(query).toString()}`)
  }
)

const segment = (prefix: string, good: fc.Arbitrary<string>) =>
  withQuery(
    fc.oneof({ weight: 3, arbitrary: good }, { weight: 2, arbitrary: junkSegment }).map((value) => `${prefix}/${value}`)
  )

/** Every endpoint of Api.ts but the webhook, which is fuzzed with and without signatures on its own. */
export const endpoints = (fixtures: Fixtures, samples: number, seed: number): ReadonlyArray<Endpoint> => {
  const challengeId = fc.oneof(
    fc.constantFrom(...fixtures.liveChallengeIds, fixtures.endedChallengeId).map(String),
    fc.integer({ min: 1, max: 10_000 }).map(String)
  )
  const trivia = schemaSamples(ChallengeInput, samples, seed)
  const round = fc.oneof(
    fc.constantFrom(
      date(0),
      date(-DAY),
      date(-7 * DAY),
      date(DAY),
      "2026-02-30",
      "2026-13-01",
      "0000-01-01",
      "9999-12-31"
    ),
    fc
      .date({ min: new Date("1900-01-01"), max: new Date("2200-01-01"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10))
  )
  return [
    { name: "GET /healthz", method: "GET", auth: "none", path: fixed("/healthz"), bodies: undefined },
    { name: "GET /readyz", method: "GET", auth: "none", path: fixed("/readyz"), bodies: undefined },
    {
      name: "POST /v1/debug/push-direct",
      method: "POST",
      auth: "push",
      path: fixed("/v1/debug/push-direct"),
      bodies: [
        { tokenType: "FCM", token: "fcm-device-token-0123456789", title: "Hello", body: "World" },
        { tokenType: "APNS", token: "a".repeat(64), title: "T", body: "B", data: { key: "value" } }
      ],
      derived: schemaSamples(PushMessage, samples, seed)
    },
    { name: "GET /v1/spin-and-win", method: "GET", auth: "user", path: fixed("/v1/spin-and-win"), bodies: undefined },
    {
      name: "POST /v1/spin-and-win/spin",
      method: "POST",
      auth: "user",
      path: fixed("/v1/spin-and-win/spin"),
      bodies: [{}]
    },
    {
      name: "GET /v1/spin-and-win/client-seed",
      method: "GET",
      auth: "user",
      path: fixed("/v1/spin-and-win/client-seed"),
      bodies: undefined
    },
    {
      name: "PUT /v1/spin-and-win/client-seed",
      method: "PUT",
      auth: "user",
      path: fixed("/v1/spin-and-win/client-seed"),
      bodies: [{ clientSeed: "my lucky seed" }, { clientSeed: "~".repeat(64) }],
      derived: schemaSamples(SetClientSeed, samples, seed)
    },
    {
      name: "GET /v1/spin-and-win/rounds/{round}",
      method: "GET",
      auth: "user",
      path: segment("/v1/spin-and-win/rounds", round),
      bodies: undefined
    },
    {
      name: "PUT /v1/gaming/trivia/challenges/{challengeId}",
      method: "PUT",
      auth: "admin",
      path: segment("/v1/gaming/trivia/challenges", challengeId),
      bodies: [challengeBody()],
      derived: trivia
    },
    {
      name: "POST /v1/gaming/trivia/challenges",
      method: "POST",
      auth: "admin",
      path: fixed("/v1/gaming/trivia/challenges"),
      bodies: [challengeBody()],
      derived: trivia
    },
    {
      name: "GET /v1/gaming/trivia/challenges/{challengeId}",
      method: "GET",
      auth: "user",
      path: segment("/v1/gaming/trivia/challenges", challengeId),
      bodies: undefined
    },
    {
      name: "GET /v1/gaming/trivia/challenges",
      method: "GET",
      auth: "user",
      path: fixed("/v1/gaming/trivia/challenges"),
      bodies: undefined
    },
    {
      name: "POST /v1/user/cards",
      method: "POST",
      auth: "user",
      path: fixed("/v1/user/cards"),
      bodies: CARD_NUMBERS.map(([number, cvv]) => cardBody(number, cvv)),
      derived: schemaSamples(NewCard, samples, seed)
    },
    { name: "GET /v1/user/cards", method: "GET", auth: "user", path: fixed("/v1/user/cards"), bodies: undefined },
    {
      name: "DELETE /v1/user/cards/{cardId}",
      method: "DELETE",
      auth: "user",
      path: segment("/v1/user/cards", fc.oneof(fc.constantFrom(...fixtures.cardIds), fc.uuid())),
      bodies: undefined
    },
    {
      name: "PUT /v1/user/devices",
      method: "PUT",
      auth: "user",
      path: fixed("/v1/user/devices"),
      bodies: [
        { tokenType: "FCM", token: `fuzz-device:APA91b${"Fz0_-".repeat(30)}`, platform: "android" },
        { tokenType: "APNS", token: "f0".repeat(32), platform: "ios" },
        { tokenType: "APNS", token: "0A".repeat(40) }
      ],
      derived: schemaSamples(RegisterDeviceRequest, samples, seed)
    },
    { name: "GET /v1/user/devices", method: "GET", auth: "user", path: fixed("/v1/user/devices"), bodies: undefined },
    {
      name: "DELETE /v1/user/devices/{deviceId}",
      method: "DELETE",
      auth: "user",
      path: segment("/v1/user/devices", fc.uuid()),
      bodies: undefined
    },
    { name: "GET /v1/wallet", method: "GET", auth: "user", path: fixed("/v1/wallet"), bodies: undefined },
    {
      name: "GET /v1/wallet/transactions",
      method: "GET",
      auth: "user",
      path: withQuery(fc.constant("/v1/wallet/transactions"), statementQuery),
      bodies: undefined
    },
    {
      name: "GET /v1/admin/users/{userId}/transactions",
      method: "GET",
      auth: "admin",
      path: withQuery(
        fc
          .oneof(
            { weight: 3, arbitrary: fc.constantFrom("fuzz-user-1", "fuzz-user-0") },
            { weight: 2, arbitrary: junkSegment }
          )
          .map((userId) => `/v1/admin/users/${userId}/transactions`),
        statementQuery
      ),
      bodies: undefined
    },
    {
      name: "PUT /v1/admin/virtual-accounts/{accountNumber}",
      method: "PUT",
      auth: "admin",
      path: segment(
        "/v1/admin/virtual-accounts",
        fc.oneof(fc.constantFrom(...fixtures.accountNumbers), fc.stringMatching(/^[0-9]{10}$/))
      ),
      bodies: [
        { userId: "fuzz-user-1", currency: "NGN", accountName: "Ada Okafor", bankName: "Providus Bank" },
        { userId: "fuzz-user-2", currency: "USD" }
      ],
      derived: schemaSamples(LinkVirtualAccountRequest, samples, seed)
    },
    {
      name: "POST /v1/admin/transfers",
      method: "POST",
      auth: "admin",
      path: fixed("/v1/admin/transfers"),
      bodies: [
        { reference: "TRF-fuzz-1", userId: "fuzz-user-1", amount: "10.00", currency: "NGN" },
        { reference: "TRF-fuzz-2", userId: "fuzz-user-0", amount: 2500, currency: "NGN" }
      ],
      derived: schemaSamples(RecordTransferRequest, samples, seed)
    },
    {
      name: "GET /v1/admin/reconciliations",
      method: "GET",
      auth: "admin",
      path: withQuery(fc.constant("/v1/admin/reconciliations"), reconciliationsQuery),
      bodies: undefined
    }
  ]
}
