import * as FindMyWay from "effect/http/FindMyWay"
import { HttpApi, type HttpApiGroup } from "effect/http-api"

/**
 * Maps a request to the route pattern it matched (`/v1/user/cards/:cardId`), for metric labels:
 * raw paths carry ids and would make one time series per card. Anything unmatched is `unmatched`.
 */
export const makeRouteLabels = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  extra: ReadonlyArray<readonly [string, string]>
) => {
  const router = FindMyWay.make<string>()
  const add = (method: string, path: string) => {
    router.on(method, path as FindMyWay.PathInput, path)
  }
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path)
  })
  for (const [method, path] of extra) add(method, path)
  return (method: string, url: string): string => router.find(method, url)?.handler ?? "unmatched"
}
