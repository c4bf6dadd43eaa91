/**
 * Calendar dates (src/core/dates.ts): the one place the rules, trends, the
 * workflow and the tools' checks take `YYYY-MM-DD` dates, day numbers and
 * the clock's today from.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { dayNumber, isCalendarDate, isoDay, isoOfDayNumber, isoSeconds, now, today } from "../../src/core/dates.js"

describe("dates", () => {
  it("accepts real calendar dates only, written YYYY-MM-DD", () => {
    for (const ok of ["2024-02-29", "2017-06-12", "1991-08-14", "2000-02-29"]) assert.isTrue(isCalendarDate(ok), ok)
    for (const bad of ["2023-02-29", "2024-02-30", "2024-13-01", "2024-00-10", "1900-02-29", "2024-1-5", "2024-01-05T00:00:00Z", "yesterday", ""]) {
      assert.isFalse(isCalendarDate(bad), bad)
    }
  })

  it("counts days from the epoch, at UTC midnight, and back", () => {
    assert.strictEqual(dayNumber("1970-01-01"), 0)
    assert.strictEqual(dayNumber("1970-01-02T23:59:59Z"), 1)
    assert.strictEqual(dayNumber("2024-03-01") - dayNumber("2024-02-28"), 2)
    for (const d of ["1999-12-31", "2000-02-29", "2017-06-12"]) assert.strictEqual(isoOfDayNumber(dayNumber(d)), d)
  })

  it("writes instants in UTC: the day, and whole seconds", () => {
    const t = Date.UTC(2017, 5, 12, 23, 59, 58, 999)
    assert.strictEqual(isoDay(t), "2017-06-12")
    assert.strictEqual(isoSeconds(t), "2017-06-12T23:59:58Z")
  })

  it.effect("today and now come from the Effect clock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 30, 21, 5, 7, 250))
      assert.strictEqual(yield* today, "2026-11-30")
      assert.strictEqual(yield* now, "2026-11-30T21:05:07Z")
    }))
})
