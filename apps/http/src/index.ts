export { Api } from "./Api.ts"
export { Routes, ServiceLive } from "./Server.ts"
