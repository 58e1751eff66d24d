/**
 * The paths and header names of the HTTP contract (CONTRACT.md), said once: the API definitions,
 * the CLI, the tests and the bench import them from here rather than spelling them again.
 */

/** The core-banking provider's notifications (CONTRACT §4). */
export const WEBHOOK_PATH = "/v1/webhook/core-banking/provider"

/** Everything under these answers in its group's envelope, unknown paths (a 404) included (CONTRACT §2). */
export const WEBHOOK_SPACE = "/v1/webhook/"
export const TRIVIA_SPACE = "/v1/gaming/trivia/"

export const TRIVIA_CHALLENGES_PATH = "/v1/gaming/trivia/challenges"

/** Served beside the API: its reference, its OpenAPI document, and Prometheus. */
export const DOCS_PATH = "/docs"
export const OPENAPI_PATH = "/openapi.json"
export const METRICS_PATH = "/metrics"

/** Header names, as written in the contract (HTTP compares them case-insensitively). */
export const Header = {
  /** Hex HMAC-SHA256 of the webhook's exact body. */
  providerSignature: "X-Provider-Signature",
  /** `INTERNAL_API_KEY`, on the internal push endpoint. */
  internalKey: "X-Internal-Key",
  /** Accepted when sane, else generated; echoed on every answer. */
  requestId: "X-Request-Id",
  /** Makes a spin repeatable: the same key returns the first result. */
  idempotencyKey: "Idempotency-Key"
} as const

/** Settlement reconciliations (CONTRACT §7): import a report, list them, their breaks, resolve one. */
export const RECONCILIATIONS_PATH = "/v1/admin/reconciliations"

/** The media type of a settlement report's body. */
export const REPORT_MEDIA_TYPE = "text/csv"
