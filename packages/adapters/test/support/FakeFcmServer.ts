import type { IncomingMessage, ServerResponse } from "node:http"
import https from "node:https"
import type { AddressInfo } from "node:net"
import tls from "node:tls"
import { Context, Effect, Layer } from "effect"
import { type FakePushServer, listenOnLoopback, recordingByToken } from "./RecordingServer.ts"
import { makeTestCertificates } from "./TestCertificates.ts"

/** What the fake saw of one request. */
export interface FcmRequest {
  readonly method: string | undefined
  readonly path: string | undefined
  readonly authorization: string | undefined
  readonly body: unknown
}

/** An answer the fake gives at once. */
export type FcmAnswer =
  | { readonly status: number; readonly json: unknown }
  | { readonly status: number; readonly text: string }

/**
 * How the fake answers a token: an HTTP status and JSON (or raw text) body, never, or (a slow
 * provider) an answer after `afterMillis`, the usual success when none is given. The request is
 * recorded when it arrives, before any answer.
 */
export type FcmReply = FcmAnswer | "hang" | { readonly afterMillis: number; readonly answer?: FcmAnswer }

const FCM_ERROR_TYPE = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

/** An FCM HTTP v1 error body (google.rpc.Status), with an FCM `errorCode` detail when given. */
export const fcmError = (code: number, status: string, message: string, errorCode?: string): FcmReply => ({
  status: code,
  json: {
    error: {
      code,
      message,
      status,
      ...(errorCode === undefined ? {} : { details: [{ "@type": FCM_ERROR_TYPE, errorCode }] })
    }
  }
})

/**
 * An agent that takes firebase-admin to the fake on `port`, whatever host it asks for; TLS still
 * checks the host's name, against the test CA. Also used by worker processes the tests start.
 */
export const loopbackAgent = (port: number, caPem: string): https.Agent => {
  class LoopbackAgent extends https.Agent {
    override createConnection(options: https.RequestOptions) {
      return tls.connect({
        host: "127.0.0.1",
        port,
        servername: options.servername ?? options.host ?? undefined,
        ca: caPem,
        ALPNProtocols: ["http/1.1"]
      })
    }
  }
  return new LoopbackAgent()
}

/**
 * A loopback stand-in for fcm.googleapis.com, and the agent that routes firebase-admin to it over
 * TLS checked against a test CA for the real host name.
 */
export class FakeFcmServer extends Context.Service<
  FakeFcmServer,
  FakePushServer<FcmRequest, FcmReply> & { readonly agent: https.Agent }
>()("adapters/test/FakeFcmServer") {
  static readonly layer = Layer.effect(
    FakeFcmServer,
    Effect.gen(function* () {
      const certificates = yield* makeTestCertificates
      const recording = recordingByToken<FcmRequest, FcmReply>()
      let sent = 0

      const handle = async (request: IncomingMessage, response: ServerResponse) => {
        const chunks: Array<Buffer> = []
        for await (const chunk of request) chunks.push(chunk as Buffer)
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8") || "null")
        const token = (body as { message?: { token?: string } } | null)?.message?.token ?? ""
        recording.record(token, {
          method: request.method,
          path: request.url,
          authorization: request.headers.authorization,
          body
        })
        const scripted = recording.replyFor(token)
        if (scripted === "hang") return
        let reply: FcmAnswer | undefined
        if (scripted !== undefined && "afterMillis" in scripted) {
          await new Promise((resolve) => setTimeout(resolve, scripted.afterMillis))
          reply = scripted.answer
        } else reply = scripted
        if (reply === undefined) {
          const projectId = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(request.url ?? "")?.[1] ?? "unknown"
          sent += 1
          response.writeHead(200, { "content-type": "application/json; charset=UTF-8" })
          response.end(JSON.stringify({ name: `projects/${projectId}/messages/${sent}` }))
        } else if ("json" in reply) {
          response.writeHead(reply.status, { "content-type": "application/json; charset=UTF-8" })
          response.end(JSON.stringify(reply.json))
        } else {
          response.writeHead(reply.status, { "content-type": "text/html; charset=UTF-8" })
          response.end(reply.text)
        }
      }

      const server = https.createServer(
        { key: certificates.serverKeyPem, cert: certificates.serverCertPem },
        (req, res) => {
          handle(req, res).catch(() => res.destroy())
        }
      )
      yield* listenOnLoopback(server, () => server.closeAllConnections())
      const port = (server.address() as AddressInfo).port

      const agent = yield* Effect.acquireRelease(
        Effect.sync(() => loopbackAgent(port, certificates.caPem)),
        (agent) => Effect.sync(() => agent.destroy())
      )

      return FakeFcmServer.of({
        port,
        agent,
        certificates,
        requestsFor: recording.requestsFor,
        replyTo: recording.replyTo
      })
    })
  )
}
