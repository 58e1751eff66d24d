import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Result } from "effect"
import * as Jose from "jose"
import { hs256Key, verifyHs256Jws } from "../../src/auth/Hs256Jws.ts"
import { base64url, hmacKey, nowSeconds, SECRET } from "../support/JwtFixtures.ts"

// Tokens are built by hand here: each breaks one rule and is otherwise well signed, so a refusal is
// about that rule. Each is also handed to jose, which the HS256 path replaces, to show it refuses
// the same token (and accepts the same odd-but-valid ones).

const key = hs256Key(Redacted.make(SECRET))
const bytes = (value: string | Uint8Array) => Buffer.from(value).toString("base64url")
const hmac = (input: string, secret = SECRET, algorithm = "sha256") =>
  createHmac(algorithm, secret).update(input).digest("base64url")
/** `header.payload.` followed by the right HS256 signature of those two segments. */
const signed = (header: string, payload: string) => `${header}.${payload}.${hmac(`${header}.${payload}`)}`

const HEADER = base64url({ alg: "HS256", typ: "JWT" })
const PAYLOAD = base64url({ sub: "user-1", exp: nowSeconds() + 3600 })
const GOOD = signed(HEADER, PAYLOAD)
const [, , GOOD_SIGNATURE = ""] = GOOD.split(".")

const outcome = (token: string) => {
  const result = verifyHs256Jws(key, token)
  return Result.isSuccess(result) ? "accepted" : result.failure
}
const joseOutcome = (token: string) =>
  Effect.promise(() =>
    Jose.jwtVerify(token, hmacKey(SECRET), { algorithms: ["HS256"] }).then(
      () => "accepted",
      () => "refused"
    )
  )

/** Asserts our reason for each token, and that jose too refuses or accepts it. */
const expectAll = (reason: string, tokens: Record<string, string>) =>
  Effect.gen(function* () {
    for (const [name, token] of Object.entries(tokens)) {
      assert.strictEqual(outcome(token), reason, name)
      assert.strictEqual(yield* joseOutcome(token), reason === "accepted" ? "accepted" : "refused", `jose: ${name}`)
    }
  })

describe("verifyHs256Jws", () => {
  it.effect("a well-signed token gives its header and payload, parsed", () =>
    Effect.gen(function* () {
      const result = verifyHs256Jws(key, GOOD)
      assert.isTrue(Result.isSuccess(result))
      if (Result.isSuccess(result)) {
        assert.deepStrictEqual(result.success.header, { alg: "HS256", typ: "JWT" })
        assert.strictEqual(result.success.payload.sub, "user-1")
      }
      yield* expectAll("accepted", { good: GOOD })
    })
  )

  it.effect("anything but three segments is malformed", () =>
    expectAll("malformed token", {
      empty: "",
      one: HEADER,
      two: `${HEADER}.${PAYLOAD}`,
      four: `${GOOD}.${GOOD_SIGNATURE}`,
      "an extra dot": `${HEADER}.${PAYLOAD}..${GOOD_SIGNATURE}`
    })
  )

  it.effect("a segment that is not base64url is malformed, even when signed", () =>
    expectAll("malformed token", {
      "header with a character outside the alphabet": signed(`${HEADER.slice(0, -1)}*`, PAYLOAD),
      "header of 4n+1 characters": signed(`${HEADER}${"A".repeat((5 - (HEADER.length % 4)) % 4 || 4)}`, PAYLOAD),
      "header in standard base64": signed(Buffer.from('{"alg":"HS256","x":"~~~~"}').toString("base64"), PAYLOAD),
      "payload with a character outside the alphabet": signed(HEADER, `${PAYLOAD.slice(0, -1)}$`),
      "signature with a character outside the alphabet": `${HEADER}.${PAYLOAD}.${GOOD_SIGNATURE.slice(0, -1)}!`
    })
  )

  it.effect("a header that is not a JSON object is malformed", () =>
    expectAll("malformed token", {
      array: signed(base64url([{ alg: "HS256" }]), PAYLOAD),
      string: signed(base64url("HS256"), PAYLOAD),
      number: signed(base64url(256), PAYLOAD),
      null: signed(base64url(null), PAYLOAD),
      "not JSON": signed(bytes('{"alg":"HS256"'), PAYLOAD),
      "not UTF-8": signed(bytes(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])), PAYLOAD)
    })
  )

  it.effect("a payload that is not a JSON object is malformed, though well signed", () =>
    expectAll("malformed token", {
      array: signed(HEADER, base64url([{ sub: "user-1" }])),
      string: signed(HEADER, base64url("user-1")),
      "not JSON": signed(HEADER, bytes('{"sub":"user-1"')),
      "not UTF-8": signed(
        HEADER,
        bytes(Buffer.from([0x7b, 0x22, 0x73, 0x75, 0x62, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]))
      )
    })
  )

  it.effect("alg must be HS256 exactly; missing or not a string is malformed", () =>
    Effect.gen(function* () {
      const withAlg = (alg: unknown) => signed(base64url({ alg, typ: "JWT" }), PAYLOAD)
      const hs384Header = base64url({ alg: "HS384" })
      yield* expectAll("algorithm not allowed", {
        none: `${base64url({ alg: "none" })}.${PAYLOAD}.`,
        "HS256 in lower case": withAlg("hs256"),
        "HS384, really signed with HS384": `${hs384Header}.${PAYLOAD}.${hmac(`${hs384Header}.${PAYLOAD}`, SECRET, "sha384")}`,
        RS256: withAlg("RS256")
      })
      yield* expectAll("malformed token", {
        missing: signed(base64url({ typ: "JWT" }), PAYLOAD),
        empty: withAlg(""),
        number: withAlg(256),
        array: withAlg(["HS256"])
      })
    })
  )

  it.effect("crit: an unknown extension is refused, a malformed crit is malformed, b64 as jose has it", () =>
    Effect.gen(function* () {
      const withHeader = (header: Record<string, unknown>) => signed(base64url({ alg: "HS256", ...header }), PAYLOAD)
      yield* expectAll("token could not be verified", {
        "an unknown extension": withHeader({ crit: ["exp"], exp: 1 }),
        "an unknown one after b64": withHeader({ crit: ["b64", "urn:x"], b64: true, "urn:x": 1 })
      })
      yield* expectAll("malformed token", {
        "an empty list": withHeader({ crit: [] }),
        "not a list": withHeader({ crit: "b64", b64: true }),
        "an empty name": withHeader({ crit: [""] }),
        "a name that is not a string": withHeader({ crit: [1] }),
        "b64 listed but absent": withHeader({ crit: ["b64"] }),
        "b64 not a boolean": withHeader({ crit: ["b64"], b64: "false" }),
        // RFC 7797 §7: a JWT's payload is always encoded; signed over the raw payload, as b64: false means.
        "b64 false": (() => {
          const header = base64url({ alg: "HS256", crit: ["b64"], b64: false })
          return `${header}.abc.${hmac(`${header}.abc`)}`
        })()
      })
      yield* expectAll("accepted", {
        "b64 true, listed": withHeader({ crit: ["b64"], b64: true }),
        "b64 false but not critical (ignored)": withHeader({ b64: false })
      })
    })
  )

  it.effect("a signature of the wrong length or content is a bad signature", () =>
    Effect.gen(function* () {
      const other = Buffer.from(GOOD_SIGNATURE, "base64url")
      other[0] = (other[0] ?? 0) ^ 1
      yield* expectAll("bad signature", {
        empty: `${HEADER}.${PAYLOAD}.`,
        "one byte short": `${HEADER}.${PAYLOAD}.${Buffer.from(GOOD_SIGNATURE, "base64url").subarray(0, 31).toString("base64url")}`,
        "one byte more": `${HEADER}.${PAYLOAD}.${Buffer.concat([Buffer.from(GOOD_SIGNATURE, "base64url"), Buffer.from([0])]).toString("base64url")}`,
        "HS512 length": `${HEADER}.${PAYLOAD}.${hmac(`${HEADER}.${PAYLOAD}`, SECRET, "sha512")}`,
        "one bit flipped": `${HEADER}.${PAYLOAD}.${other.toString("base64url")}`,
        "another secret": `${HEADER}.${PAYLOAD}.${hmac(`${HEADER}.${PAYLOAD}`, "another-secret-also-at-least-32-bytes")}`,
        "a tampered payload": `${HEADER}.${base64url({ sub: "admin", exp: nowSeconds() + 3600 })}.${GOOD_SIGNATURE}`
      })
    })
  )

  it("is stricter than jose on padding and whitespace, which no issuer sends", () => {
    // jose (through atob) lets `=` padding and blanks inside a segment through; this path does not.
    const odd = base64url({ alg: "HS256", k: 12 })
    assert.notStrictEqual(odd.length % 4, 0)
    assert.strictEqual(outcome(signed(odd, PAYLOAD)), "accepted")
    assert.strictEqual(outcome(signed(odd.padEnd(odd.length + 4 - (odd.length % 4), "="), PAYLOAD)), "malformed token")
    assert.strictEqual(outcome(signed(`${HEADER.slice(0, 4)} ${HEADER.slice(4)}`, PAYLOAD)), "malformed token")
    assert.strictEqual(
      outcome(`${HEADER}.${PAYLOAD}.${GOOD_SIGNATURE.slice(0, 8)} ${GOOD_SIGNATURE.slice(8)}`),
      "malformed token"
    )
  })
})
