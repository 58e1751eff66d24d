import { Schema } from "effect"

/** The user id carried in a bearer token's `sub` claim. */
export const UserId = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(128)).pipe(Schema.brand("UserId"))
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
