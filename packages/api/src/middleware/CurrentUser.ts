import type { Principal } from "@payments-gaming/domain/auth"
import { Context } from "effect"

/** The verified caller of the current request, provided by the Authentication middleware. */
export class CurrentUser extends Context.Service<CurrentUser, Principal>()("@payments-gaming/api/CurrentUser") {}
