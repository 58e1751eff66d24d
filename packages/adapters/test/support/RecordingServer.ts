import { once } from "node:events"
import type { Server } from "node:net"
import { Effect } from "effect"
import type { TestCertificates } from "./TestCertificates.ts"

/** A fake push service on loopback TLS: what it received per device token, and how it answers one. */
export interface FakePushServer<Request, Reply> {
  readonly port: number
  readonly certificates: TestCertificates
  /** Every request received for a token, in order. */
  readonly requestsFor: (token: string) => ReadonlyArray<Request>
  readonly replyTo: (token: string, reply: Reply) => void
}

/** What a fake push server received, per device token, and how it is told to answer a token. */
export const recordingByToken = <Request, Reply>() => {
  const requests: Array<Request & { readonly token: string }> = []
  const replies = new Map<string, Reply>()
  return {
    record: (token: string, request: Request) => {
      requests.push({ ...request, token })
    },
    replyFor: (token: string) => replies.get(token),
    requestsFor: (token: string): ReadonlyArray<Request> => requests.filter((request) => request.token === token),
    replyTo: (token: string, reply: Reply) => {
      replies.set(token, reply)
    }
  }
}

/** `server` listening on a free loopback port for the scope; `dropConnections` runs before it closes. */
export const listenOnLoopback = (server: Server, dropConnections: () => void) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      server.listen(0, "127.0.0.1")
      await once(server, "listening")
    }),
    () =>
      Effect.promise(async () => {
        dropConnections()
        await new Promise((resolve) => server.close(resolve))
      })
  )
