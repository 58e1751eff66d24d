import { Schema } from "effect"

/**
 * Who a wallet, a card, a spin or a push belongs to: a bearer token's `sub` claim, or an operator's
 * `userId` (admin API, CLI), decoded at that edge. Every use case and port takes this brand, and the
 * adapters read it back from rows through this schema.
 */
export const UserId = Schema.String.check(Schema.isBetweenLength(1, 128)).pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const Role = Schema.String
export const ADMIN_ROLE = "admin"

/** Who is calling: the verified subject of a bearer token and its roles. */
export class Principal extends Schema.Class<Principal>("Principal")({
  userId: UserId,
  roles: Schema.Array(Role)
}) {
  get isAdmin(): boolean {
    return this.roles.includes(ADMIN_ROLE)
  }
}
