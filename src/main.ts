import { runService } from "./Service.ts"

await runService()
