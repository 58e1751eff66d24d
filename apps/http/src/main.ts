import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { ServiceLive } from "./Server.ts"

// SIGINT/SIGTERM interrupt the main fiber; closing the layer's scope shuts the service down in order.
Layer.launch(ServiceLive).pipe(NodeRuntime.runMain)
