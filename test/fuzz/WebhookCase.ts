import { WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { CreditPayload, IgnoredPayload, TransferPayload } from "@payments-gaming/domain/banking"
import { example } from "@payments-gaming/domain/test/support/fixtures"
import fc from "fast-check"
import { signWebhook, TEST_ENV } from "../support/TestServer.ts"
import { type BodyCase, bodyCase } from "./BodyCase.ts"
import type { FuzzRequest } from "./FuzzRequest.ts"
import { contentType, junkHeaderValue, withinBudget } from "./HeaderCase.ts"
import { schemaSamples } from "./schemaSamples.ts"

export { WEBHOOK_PATH } from "@payments-gaming/api/Paths"

const secrets = TEST_ENV.WEBHOOK_SECRETS.split(",")

const hmac = (secret: string, bytes: Uint8Array) => Buffer.from(signWebhook(bytes, secret), "hex")

/** The spec's sample events, each under a few references and amounts. */
export const webhookSeeds = (): ReadonlyArray<unknown> =>
  (["virtual-account-credit", "transfer-success", "transfer-failed", "ignored"] as const).flatMap((name) =>
    [0, 1, 2].map((variant) => {
      const payload = example(name)
      payload.data.reference = `FUZZ-${name}-${variant}`
      if (variant === 1) payload.data.amount = "12.34"
      if (variant === 2) payload.virtualAccountNumber = "9900112234"
      return payload
    })
  )

// Bodies of the documented payload Schemas; derivation skips what it cannot build (exact decimals).
const webhookDerived = [CreditPayload, TransferPayload, IgnoredPayload].flatMap((schema, index) =>
  schemaSamples(schema, 10, index)
)

/**
 * Signatures that must not verify for `bytes`: none, empty, junk, a signature of other bytes, of an
 * unknown secret, a truncated or extended digest, prefixed (`sha256=`), base64 instead of hex.
 */
const wrongSignature = (bytes: Uint8Array): fc.Arbitrary<string | undefined> => {
  const right = hmac(secrets[0] as string, bytes)
  const other = new Uint8Array([...bytes, 0x20])
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      "",
      "0".repeat(64),
      hmac(secrets[0] as string, other).toString("hex"),
      hmac("not-a-configured-secret", bytes).toString("hex"),
      right.toString("hex").slice(0, 63),
      right.toString("hex").slice(0, 62),
      `${right.toString("hex")}00`,
      `sha256=${right.toString("hex")}`,
      ` ${right.toString("hex")}x`,
      right.toString("base64"),
      right.toString("base64url"),
      `${right.toString("hex")},${right.toString("hex")}`
    ),
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((digest) => Buffer.from(digest).toString("hex")),
    junkHeaderValue
  )
}

const headers = (signature: string | undefined, type: string | undefined) =>
  withinBudget({
    ...(signature === undefined ? {} : { "x-provider-signature": signature }),
    ...(type === undefined ? {} : { "content-type": type })
  })

const request = (base: string, body: BodyCase, headerValues: Record<string, string>, label: string): FuzzRequest => ({
  endpoint: `POST ${WEBHOOK_PATH}`,
  method: "POST",
  url: `${base}${WEBHOOK_PATH}`,
  headers: headerValues,
  body,
  authAccepted: undefined,
  label
})

/** Fuzzed bodies under a signature that must be refused. */
export const unsignedWebhook = (base: string): fc.Arbitrary<FuzzRequest> =>
  fc
    .tuple(bodyCase(webhookSeeds(), webhookDerived), contentType)
    .chain(([body, type]) =>
      wrongSignature(body.bytes).map((signature) =>
        request(base, body, headers(signature, type), `signature ${JSON.stringify(signature?.slice(0, 20))}`)
      )
    )

/** Fuzzed bodies signed with a configured secret (current or previous), in lower or upper case hex. */
export const signedWebhook = (base: string): fc.Arbitrary<FuzzRequest> =>
  fc
    .tuple(bodyCase(webhookSeeds(), webhookDerived), contentType, fc.constantFrom(...secrets), fc.boolean())
    .map(([body, type, secret, upper]) => {
      const hex = hmac(secret, body.bytes).toString("hex")
      return request(base, body, headers(upper ? hex.toUpperCase() : hex, type), upper ? "upper-case hex" : "hex")
    })
