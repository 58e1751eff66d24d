// The HTTP contract of the service (CONTRACT.md): the server (apps/http) implements `Api`; the CLI,
// and any other service, call it with `HttpApiClient.make(Api, { baseUrl })`, giving their
// credentials with `HttpApiMiddleware.layerClient(Authentication | InternalKey, …)`.

export { Api } from "./Api.ts"
export * from "./ApiErrors.ts"
export { Envelope, FieldIssue, ReducedEnvelope } from "./Envelope.ts"
export { Authentication } from "./middleware/Authentication.ts"
export { BodyGuard, MAX_BODY } from "./middleware/BodyGuard.ts"
export { CurrentUser } from "./middleware/CurrentUser.ts"
export { InternalKey } from "./middleware/InternalKey.ts"
export { RequireAdmin } from "./middleware/RequireAdmin.ts"
export { SchemaErrors } from "./middleware/SchemaErrors.ts"
export * from "./Paths.ts"
