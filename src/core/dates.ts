/**
 * Calendar dates as the companion writes them: `YYYY-MM-DD` in UTC, days
 * counted from the epoch, and the clock's "today" and "now". One place for
 * every face and use case (rules, trends, the workflow, the tools' checks).
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"

/** Milliseconds in a day. */
export const MS_PER_DAY = 86_400_000

/** `YYYY-MM-DD` (UTC) of an instant in epoch milliseconds. */
export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds) of an instant in epoch milliseconds. */
export const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")

/** Days since the epoch of a date (its first 10 characters, `YYYY-MM-DD`), at UTC midnight. */
export const dayNumber = (iso: string): number => Math.floor(Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / MS_PER_DAY)

/** `YYYY-MM-DD` of a day counted from the epoch. */
export const isoOfDayNumber = (day: number): string => isoDay(day * MS_PER_DAY)

/** Whether `s` is a real calendar date written `YYYY-MM-DD` (no 2024-02-30). */
export const isCalendarDate = (s: string): boolean =>
  /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && isoDay(Date.parse(`${s}T00:00:00Z`)) === s

/** Today's date (UTC) by the Effect clock. */
export const today: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, isoDay)

/** Now (UTC, whole seconds) by the Effect clock. */
export const now: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, isoSeconds)
