// autocannon ships no types: this declares the part of its programmatic API the bench uses
// (autocannon 9 README, "API" and "Results").
declare module "autocannon" {
  namespace autocannon {
    interface Request {
      method?: string
      path?: string
      headers?: Record<string, string>
      body?: string | Buffer
    }

    interface RequestStep extends Request {
      /** Called before every request is sent; returns the request to send. */
      setupRequest?: (request: Request & { headers: Record<string, string> }, context: object) => Request
    }

    interface Options {
      url: string
      connections?: number
      duration?: number
      amount?: number
      timeout?: number
      pipelining?: number
      method?: string
      headers?: Record<string, string>
      body?: string | Buffer
      requests?: Array<RequestStep>
      setupClient?: (client: Client) => void
    }

    interface Client {
      setHeaders(headers: Record<string, string>): void
    }

    interface Histogram {
      average: number
      mean: number
      stddev: number
      min: number
      max: number
      total: number
      p50: number
      p90: number
      p99: number
      p99_9: number
    }

    interface Result {
      requests: Histogram & { sent: number }
      latency: Histogram
      throughput: Histogram
      duration: number
      errors: number
      timeouts: number
      non2xx: number
      statusCodeStats: Record<string, { count: number }>
    }

    interface Instance extends PromiseLike<Result> {
      stop(): void
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance

  export default autocannon
}
