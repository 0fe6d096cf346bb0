/** Milliseconds with their sign, as a clock offset is shown: `+60000`, `-1500`, `+0`. */
export const signedMillis = (millis: number): string => (millis >= 0 ? `+${millis}` : String(millis))
