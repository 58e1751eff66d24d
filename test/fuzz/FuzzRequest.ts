import fc from "fast-check"
import { type BodyCase, bodyCase } from "./BodyCase.ts"
import type { Credentials } from "./Credentials.ts"
import type { Endpoint } from "./Endpoints.ts"
import { headerCase, withinBudget } from "./HeaderCase.ts"
import { spelling } from "./PathCase.ts"

/** One generated request, with what is needed to judge and to report its answer. */
export interface FuzzRequest {
  readonly endpoint: string
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: BodyCase | undefined
  readonly authAccepted: boolean | undefined
  readonly label: string
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

/** Requests to `endpoint`: mostly its own method, sometimes another on the same path. */
export const fuzzRequest = (endpoint: Endpoint, base: string, credentials: Credentials): fc.Arbitrary<FuzzRequest> =>
  fc
    .tuple(
      fc.oneof(
        { weight: 9, arbitrary: fc.constant(endpoint.method) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) }
      ),
      endpoint.path.chain(spelling),
      fc.boolean()
    )
    .chain(([method, path, junkBody]) => {
      const canCarry = method !== "GET" && method !== "HEAD"
      const seeds = endpoint.bodies ?? (junkBody ? [{}] : undefined)
      const withBody = canCarry && seeds !== undefined
      return fc
        .tuple(
          headerCase(endpoint.auth, credentials, withBody),
          withBody ? bodyCase(seeds, endpoint.derived) : fc.constant(undefined)
        )
        .map(([headers, body]) => ({
          endpoint: endpoint.name,
          method,
          url: `${base}${path.path}`,
          headers: withinBudget(headers.headers, path.path),
          body,
          // Another method on the same path may be another route with other rules (GET of a
          // challenge needs no admin): only a refused bearer must still be refused there.
          authAccepted:
            method === endpoint.method || headers.label === "refused bearer" ? headers.authAccepted : undefined,
          label: [headers.label, path.label, body?.label].filter((part) => part !== undefined && part !== "").join("; ")
        }))
    })
