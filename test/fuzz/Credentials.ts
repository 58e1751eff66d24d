import * as Jose from "jose"
import { TEST_ENV } from "../support/TestServer.ts"

const secret = new TextEncoder().encode(TEST_ENV.AUTH_JWT_SECRET)
const now = () => Math.floor(Date.now() / 1000)

const signed = (claims: Jose.JWTPayload, header: Jose.JWTHeaderParameters = { alg: "HS256" }, key = secret) =>
  new Jose.SignJWT(claims).setProtectedHeader(header).sign(key)

const unsigned = (claims: Jose.JWTPayload) =>
  `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${Buffer.from(
    JSON.stringify(claims)
  ).toString("base64url")}.`

/**
 * Every credential the fuzzer presents: good ones for a pool of users and an admin, and tokens the
 * server must refuse (expired, foreign key, `alg: none`, no `exp`, a control character in `sub`).
 */
export interface Credentials {
  readonly users: ReadonlyArray<string>
  readonly admin: string
  /** Well-formed JWTs that must never authenticate. */
  readonly refused: ReadonlyArray<string>
}

export const makeCredentials = async (userCount: number): Promise<Credentials> => {
  const users = await Promise.all(
    Array.from({ length: userCount }, (_, index) => signed({ sub: `fuzz-user-${index}`, roles: [], exp: now() + 3600 }))
  )
  const admin = await signed({ sub: "fuzz-admin", roles: ["admin"], exp: now() + 3600 })
  const refused = await Promise.all([
    signed({ sub: "fuzz-expired", roles: ["admin"], exp: now() - 3600 }),
    signed({ sub: "fuzz-foreign", roles: ["admin"], exp: now() + 3600 }, { alg: "HS256" }, new Uint8Array(32).fill(7)),
    signed({ sub: "fuzz-no-exp", roles: ["admin"] }),
    signed({ sub: "fuzz\u0000nul", roles: ["admin"], exp: now() + 3600 }),
    signed({ sub: "", roles: ["admin"], exp: now() + 3600 }),
    signed({ sub: "x".repeat(129), roles: ["admin"], exp: now() + 3600 }),
    signed({ sub: 42 as unknown as string, roles: ["admin"], exp: now() + 3600 }),
    signed({ sub: "fuzz-hs512", roles: ["admin"], exp: now() + 3600 }, { alg: "HS512" }),
    signed({ sub: "fuzz-roles", roles: "admin" as unknown as Array<string>, exp: now() + 3600 }),
    Promise.resolve(unsigned({ sub: "fuzz-none", roles: ["admin"], exp: now() + 3600 }))
  ])
  return { users, admin, refused }
}
