import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Forbidden } from "../ApiErrors.ts"
import { Header } from "../Paths.ts"

const internalKey = HttpApiSecurity.apiKey({ key: Header.internalKey, in: "header" }).pipe(
  HttpApiSecurity.annotateMerge(
    OpenApi.annotations({
      description: "INTERNAL_API_KEY (in development: `INTERNAL_API_KEY` in DATA_DIR/dev-secrets.json)."
    })
  )
)

/**
 * The `X-Internal-Key` check of the debug endpoints. A client gives the key with
 * `HttpApiMiddleware.layerClient(InternalKey, …)`, so it is sent to those endpoints only.
 */
export class InternalKey extends HttpApiMiddleware.Service<InternalKey>()("@payments-gaming/api/InternalKey", {
  security: { internalKey },
  error: Forbidden
}) {}
