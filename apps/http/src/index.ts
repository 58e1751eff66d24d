export { Api } from "./Api.ts"
export { HttpApp, Routes, ServiceLive } from "./Server.ts"
