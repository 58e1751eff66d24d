export * from "./DeviceLog.ts"
export * from "./Devices.ts"
export * from "./Errors.ts"
export * from "./Model.ts"
