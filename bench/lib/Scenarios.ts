import type autocannon from "autocannon"
import { cardBody, visaNumber } from "./Cards.ts"
import { signWebhook, tokenPool } from "./Secrets.ts"
import { creditBodies, WEBHOOK_PATH } from "./Webhook.ts"

export type ScenarioId = "wheel-view" | "webhook" | "cards" | "spin" | "spin-returning"

export interface Plan {
  readonly requests: Array<autocannon.RequestStep>
  /** Tokens minted inside the timed path because the pre-minted pool ran out. */
  readonly overflow: () => number
}

export interface Scenario {
  readonly id: ScenarioId
  readonly title: string
  /**
   * The requests of one run. `tag` is unique per run, so users, cards and references of one run
   * never meet another's; `expected` sizes the pre-minted token pools (requests the run may send).
   */
  readonly plan: (tag: string, expected: number) => Promise<Plan>
}

/** A plan of one request shape; `setupRequest` fills in each request (headers, body) as it goes out. */
const onePlan = (
  method: "GET" | "POST",
  path: string,
  overflow: () => number,
  setupRequest: NonNullable<autocannon.RequestStep["setupRequest"]>
): Plan => ({ requests: [{ method, path, setupRequest }], overflow })

const JSON_HEADERS = { "content-type": "application/json" }
// GET reads many users' wheels; 64 covers one user per connection at the highest level.
const VIEW_USERS = 64
// Nine cards per user stays under the ten-card limit whatever else the user has. Consecutive
// requests go to different users (a user's cards are CARD_USER_SPREAD requests apart): a real user
// adds one card at a time, and nine of them in flight at once would only measure the wait on that
// user's row lock.
const CARDS_PER_USER = 9
const CARD_USER_SPREAD = 512
const cardUserOf = (index: number) =>
  (index % CARD_USER_SPREAD) + CARD_USER_SPREAD * Math.floor(index / (CARDS_PER_USER * CARD_USER_SPREAD))

/**
 * The four scenarios of issue 8, and the spin of returning players; credits go to the virtual
 * accounts the bench linked, and `storeReturningPlayers` gives users the state a player has after
 * spinning in earlier rounds (in the database the service and the plain reference share).
 */
export const makeScenarios = (options: {
  readonly runId: string
  readonly accountNumbers: ReadonlyArray<string>
  readonly storeReturningPlayers: (userIds: ReadonlyArray<string>) => Promise<void>
}) => {
  const creditBody = creditBodies(options.accountNumbers)
  // Card numbers are unique across the whole run, whatever the user.
  let cardCounter = 0
  const cardSeed = Math.floor(Math.random() * 100_000)

  const wheelView: Scenario = {
    id: "wheel-view",
    title: "GET /v1/spin-and-win",
    plan: async () => {
      const pool = await tokenPool((i) => `view-${options.runId}-${i}`, VIEW_USERS)
      let next = 0
      return onePlan("GET", "/v1/spin-and-win", pool.overflow, (request) => {
        request.headers.authorization = `Bearer ${pool.at(next++ % VIEW_USERS)}`
        return request
      })
    }
  }

  const webhook: Scenario = {
    id: "webhook",
    title: "POST webhook (unique credit)",
    plan: async (tag) => {
      let next = 0
      return onePlan(
        "POST",
        WEBHOOK_PATH,
        () => 0,
        (request) => {
          const index = next++
          const body = creditBody(`BENCH-${tag}-${index}`, index)
          request.headers = { ...JSON_HEADERS, "x-provider-signature": signWebhook(body) }
          request.body = body
          return request
        }
      )
    }
  }

  const cards: Scenario = {
    id: "cards",
    title: "POST /v1/user/cards (unique)",
    plan: async (tag, expected) => {
      const pool = await tokenPool((i) => `card-${tag}-${i}`, cardUserOf(expected) + CARD_USER_SPREAD)
      let next = 0
      return onePlan("POST", "/v1/user/cards", pool.overflow, (request) => {
        const user = cardUserOf(next++)
        request.headers = { ...JSON_HEADERS, authorization: `Bearer ${pool.at(user)}` }
        request.body = cardBody(visaNumber(cardSeed, cardCounter++))
        return request
      })
    }
  }

  const spin: Scenario = {
    id: "spin",
    title: "POST /v1/spin-and-win/spin (unique user)",
    plan: async (tag, expected) => {
      const pool = await tokenPool((i) => `spin-${tag}-${i}`, expected)
      let next = 0
      return onePlan("POST", "/v1/spin-and-win/spin", pool.overflow, (request) => {
        request.headers = { authorization: `Bearer ${pool.at(next++)}` }
        return request
      })
    }
  }

  // A player spins once per round, so a returning player is one with a stored client seed (taken
  // by three earlier spins) and a coin account: the spin reads the stored seed rather than deriving
  // one, advances its nonce and credits an existing account. Most real spins are these. A target
  // with a database of its own (the peer) sees new users, which is the same to one that keeps no
  // seed.
  const spinReturning: Scenario = {
    id: "spin-returning",
    title: "POST /v1/spin-and-win/spin (returning player)",
    plan: async (tag, expected) => {
      const userOf = (index: number) => `back-${tag}-${index}`
      // A token past the pool (an overflow) is a new user's: only the static target gets there.
      await options.storeReturningPlayers(Array.from({ length: expected }, (_, index) => userOf(index)))
      const pool = await tokenPool(userOf, expected)
      let next = 0
      return onePlan("POST", "/v1/spin-and-win/spin", pool.overflow, (request) => {
        request.headers = { authorization: `Bearer ${pool.at(next++)}` }
        return request
      })
    }
  }

  return {
    wheelView,
    webhook,
    cards,
    spin,
    spinReturning,
    all: [wheelView, webhook, cards, spin, spinReturning] as const
  }
}
