import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Unauthorized } from "../ApiErrors.ts"
import type { CurrentUser } from "./CurrentUser.ts"

/**
 * The bearer scheme as OpenAPI documents it: `bearer` in lower case, as API tools compare it (Scalar
 * offered Username/Password for Effect's default `Bearer`), with `bearerFormat: JWT`. The header is
 * read case-insensitively whatever the spelling here (RFC 9110 §11.1).
 */
const bearerJwt = HttpApiSecurity.http({ scheme: "bearer" }).pipe(
  HttpApiSecurity.annotateMerge(
    OpenApi.annotations({
      format: "JWT",
      description:
        "A JWT: HS256 signed with AUTH_JWT_SECRET (`npm run cli -- token mint --sub <user> [--role admin]`), or verified against AUTH_JWKS_URL."
    })
  )
)

/**
 * Bearer JWT authentication (CONTRACT §2): provides the CurrentUser to the endpoints it guards. A
 * client gives its token with `HttpApiMiddleware.layerClient(Authentication, …)`.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentUser }>()(
  "@payments-gaming/api/Authentication",
  { security: { bearer: bearerJwt }, error: Unauthorized }
) {}
