import { randomUUID } from "node:crypto"
import http2 from "node:http2"
import type { AddressInfo } from "node:net"
import { Context, Effect, Layer } from "effect"
import { type FakePushServer, listenOnLoopback, recordingByToken } from "./RecordingServer.ts"
import { makeTestCertificates } from "./TestCertificates.ts"

/** What the fake saw of one request. */
export interface ApnsRequest {
  readonly method: string | undefined
  readonly path: string | undefined
  readonly headers: http2.IncomingHttpHeaders
  readonly body: unknown
}

/** How the fake answers a device token: Apple's status and `{reason}` body, an accept, or never. */
export type ApnsReply =
  | { readonly status: number; readonly reason: string; readonly timestamp?: number }
  | { readonly status: 200; readonly apnsId: string }
  | "hang"

/** A loopback HTTP/2 server speaking the APNs provider API (`POST /3/device/<token>`). */
export class FakeApnsServer extends Context.Service<FakeApnsServer, FakePushServer<ApnsRequest, ApnsReply>>()(
  "adapters/test/FakeApnsServer"
) {
  static readonly layer = Layer.effect(
    FakeApnsServer,
    Effect.gen(function* () {
      const certificates = yield* makeTestCertificates
      const recording = recordingByToken<ApnsRequest, ApnsReply>()

      const server = http2.createSecureServer({ key: certificates.serverKeyPem, cert: certificates.serverCertPem })
      server.on("stream", (stream, headers) => {
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => {
          const path = headers[":path"]
          const token = /^\/3\/device\/(.*)$/.exec(path ?? "")?.[1] ?? ""
          const text = Buffer.concat(chunks).toString("utf8")
          recording.record(token, {
            method: headers[":method"],
            path,
            headers,
            body: text === "" ? null : JSON.parse(text)
          })
          const reply = recording.replyFor(token)
          if (reply === "hang") return
          // Like APNs: echo the request's apns-id, or make one up.
          const requestedId = headers["apns-id"]
          const apnsId = typeof requestedId === "string" ? requestedId : randomUUID()
          if (reply === undefined) {
            stream.respond({ ":status": 200, "apns-id": apnsId })
            stream.end()
          } else if ("apnsId" in reply) {
            stream.respond({ ":status": 200, "apns-id": reply.apnsId })
            stream.end()
          } else {
            stream.respond({ ":status": reply.status, "apns-id": apnsId, "content-type": "application/json" })
            stream.end(
              JSON.stringify(
                reply.timestamp === undefined
                  ? { reason: reply.reason }
                  : { reason: reply.reason, timestamp: reply.timestamp }
              )
            )
          }
        })
        stream.on("error", () => undefined)
      })
      const sessions = new Set<http2.ServerHttp2Session>()
      server.on("session", (session) => {
        sessions.add(session)
        session.on("close", () => sessions.delete(session))
      })

      yield* listenOnLoopback(server, () => {
        for (const session of sessions) session.destroy()
      })

      return FakeApnsServer.of({
        port: (server.address() as AddressInfo).port,
        certificates,
        requestsFor: recording.requestsFor,
        replyTo: recording.replyTo
      })
    })
  )
}
