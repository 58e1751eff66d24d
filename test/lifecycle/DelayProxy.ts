import { type AddressInfo, createServer, Socket } from "node:net"
import { Effect } from "effect"

export interface DelayProxy {
  readonly port: number
  /** Holds every later chunk from the upstream for `ms` before passing it on (0: pass at once). */
  readonly setDelay: (ms: number) => void
}

/**
 * A TCP proxy on 127.0.0.1 in front of `upstream` that can make the database slow on demand, which
 * gives a test a request that is really in flight (the service has nothing slow of its own).
 * Chunks keep their order because every one waits the same delay. Closed with the scope.
 */
export const delayProxy = (upstream: { host: string; port: number }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let delay = 0
      const sockets = new Set<Socket>()
      const server = createServer((client) => {
        const target = new Socket()
        sockets.add(client)
        sockets.add(target)
        const closeBoth = () => {
          client.destroy()
          target.destroy()
          sockets.delete(client)
          sockets.delete(target)
        }
        client.on("error", closeBoth).on("close", closeBoth)
        target.on("error", closeBoth).on("close", closeBoth)
        target.connect(upstream.port, upstream.host)
        client.on("data", (chunk) => target.write(chunk))
        target.on("data", (chunk) => {
          if (delay === 0) client.write(chunk)
          else setTimeout(() => client.writable && client.write(chunk), delay)
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      return { server, sockets, port: (server.address() as AddressInfo).port, setDelay: (ms: number) => (delay = ms) }
    }),
    ({ server, sockets }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => resolve())
          })
      )
  ).pipe(Effect.map(({ port, setDelay }): DelayProxy => ({ port, setDelay })))
