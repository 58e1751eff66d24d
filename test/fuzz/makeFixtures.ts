import { WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { credit } from "@payments-gaming/domain/test/support/fixtures"
import { signWebhook } from "../support/TestServer.ts"
import type { Credentials } from "./Credentials.ts"
import { cardBody, challengeBody, type Fixtures } from "./Endpoints.ts"

const call = async (base: string, method: string, path: string, token: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = (await response.json()) as { data: Record<string, unknown> }
  if (response.status >= 300) throw new Error(`fixture ${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json.data
}

/** Challenges (running and ended), cards and linked accounts the generated paths can name. */
export const makeFixtures = async (base: string, credentials: Credentials): Promise<Fixtures> => {
  const liveChallengeIds: Array<number> = []
  for (const title of ["Fuzz live 1", "Fuzz live 2", "Fuzz live 3"]) {
    const data = await call(base, "POST", "/v1/gaming/trivia/challenges", credentials.admin, challengeBody(title))
    liveChallengeIds.push(data.id as number)
  }
  const ended = await call(base, "POST", "/v1/gaming/trivia/challenges", credentials.admin, {
    ...challengeBody("Fuzz ended"),
    startTime: "2020-01-01T00:00:00.000Z",
    endTime: "2020-01-02T00:00:00.000Z"
  })
  const cardIds: Array<string> = []
  for (const [index, token] of credentials.users.slice(0, 3).entries()) {
    const number = ["4000056655665556", "5105105105105100", "4012888888881881"][index] as string
    const data = await call(base, "POST", "/v1/user/cards", token, cardBody(number))
    cardIds.push(data.cardId as string)
  }
  const accountNumbers = ["9900112233", "9900112234"]
  for (const [index, accountNumber] of accountNumbers.entries()) {
    await call(base, "PUT", `/v1/admin/virtual-accounts/${accountNumber}`, credentials.admin, {
      userId: `fuzz-user-${index}`,
      currency: "NGN"
    })
  }
  // Funds, so that recording a transfer can succeed and not only meet "insufficient funds".
  for (const accountNumber of accountNumbers) {
    const body = JSON.stringify(
      credit({
        reference: `FUZZ-FUNDING-${accountNumber}`,
        accountNumber,
        amount: "100000.00",
        fee: "0",
        settled: "100000.00"
      })
    )
    const response = await fetch(`${base}${WEBHOOK_PATH}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-provider-signature": signWebhook(body)
      },
      body
    })
    if (response.status !== 200) throw new Error(`fixture funding: ${response.status} ${await response.text()}`)
  }
  return { liveChallengeIds, endedChallengeId: ended.id as number, cardIds, accountNumbers }
}
