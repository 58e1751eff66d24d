export { Api } from "@payments-gaming/api/Api"
export { HttpApp, Routes, ServiceLive } from "./Server.ts"
