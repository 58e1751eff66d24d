import { HttpApiMiddleware } from "effect/http-api"
import { Forbidden } from "../ApiErrors.ts"
import type { CurrentUser } from "./CurrentUser.ts"

/** Lets through only callers whose token carries the `admin` role. Runs after Authentication. */
export class RequireAdmin extends HttpApiMiddleware.Service<RequireAdmin, { requires: CurrentUser }>()(
  "@payments-gaming/api/RequireAdmin",
  { error: Forbidden }
) {}
