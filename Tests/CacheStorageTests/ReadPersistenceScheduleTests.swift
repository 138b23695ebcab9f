import Testing

@testable import CacheStorage

/// The writer persists recorded reads once they pause, within a bounded wait and memory.
@Suite("Read persistence schedule")
struct ReadPersistenceScheduleTests {
    typealias Schedule = ReadPersistenceSchedule
    static let quiet = Schedule.quietPeriod
    static let longest = Schedule.longestWait

    @Test("reads still arriving are held back until a pause, then persisted whole, pass after pass")
    func waitsForAPause() {
        var schedule = Schedule()
        // The newest read came just now: wait until it is a quiet period old.
        #expect(schedule.decide(waiting: 1_024, newestRead: 10_000, now: 10_000) == .wait(untilMilliseconds: 10_000 + Self.quiet))
        // Another read came meanwhile: wait again, from it.
        #expect(schedule.decide(waiting: 2_000, newestRead: 10_090, now: 10_100) == .wait(untilMilliseconds: 10_090 + Self.quiet))
        // Quiet: persist, and keep persisting while the backlog lasts, even if reads come again.
        #expect(schedule.decide(waiting: 2_000, newestRead: 10_090, now: 10_090 + Self.quiet) == .persist)
        schedule.persisted(remaining: 500)
        #expect(schedule.decide(waiting: 600, newestRead: 10_200, now: 10_200) == .persist)
        schedule.persisted(remaining: 0)
        // Done: the next reads are held back again.
        #expect(schedule.decide(waiting: 100, newestRead: 10_250, now: 10_250) == .wait(untilMilliseconds: 10_250 + Self.quiet))
    }

    @Test("reads that never pause are persisted once the longest wait has passed since the first hold")
    func boundedWait() {
        var schedule = Schedule()
        let start: Int64 = 50_000
        var now = start
        var waits = 0
        while case .wait(let until) = schedule.decide(waiting: 3_000, newestRead: now - 10, now: now) {
            #expect(until <= start + Self.longest)
            waits += 1
            now += 50
        }
        #expect(now >= start + Self.longest && now < start + Self.longest + 50)
        #expect(waits == Int(Self.longest / 50))
    }

    @Test("past the high-water mark, or with a clock gone back, reads are persisted at once")
    func persistsAtOnce() {
        var schedule = Schedule()
        #expect(schedule.decide(waiting: Schedule.highWater, newestRead: 7_000, now: 7_000) == .persist)
        schedule.persisted(remaining: 0)
        #expect(Schedule.highWater < AccessLog.capacity)
        // The newest read is later than now: the clock went back.
        #expect(schedule.decide(waiting: 10, newestRead: 9_000, now: 8_000) == .persist)
        schedule.persisted(remaining: 0)
        // The hold began later than now.
        #expect(schedule.decide(waiting: 10, newestRead: 8_000, now: 8_000) == .wait(untilMilliseconds: 8_000 + Self.quiet))
        #expect(schedule.decide(waiting: 10, newestRead: 6_000, now: 6_050) == .persist)
        schedule.persisted(remaining: 0)
        // Nothing waiting: a pass goes ahead (it mirrors other processes' commits too).
        #expect(schedule.decide(waiting: 0, newestRead: 9_000, now: 9_000) == .persist)
    }

    @Test("a read wakes the writer when the reads waiting first reach the threshold, and at every new one past the high-water mark")
    func wakes() {
        #expect(Schedule.wakesWriter(waiting: 1_024, isNew: true, threshold: 1_024))
        #expect(!Schedule.wakesWriter(waiting: 1_024, isNew: false, threshold: 1_024))
        #expect(!Schedule.wakesWriter(waiting: 1_025, isNew: true, threshold: 1_024))
        #expect(!Schedule.wakesWriter(waiting: 1_023, isNew: true, threshold: 1_024))
        #expect(Schedule.wakesWriter(waiting: Schedule.highWater, isNew: true, threshold: 1_024))
        #expect(Schedule.wakesWriter(waiting: Schedule.highWater + 7, isNew: true, threshold: 1_024))
        #expect(!Schedule.wakesWriter(waiting: Schedule.highWater + 7, isNew: false, threshold: 1_024))
        // A threshold of 0 or 1: the first read.
        #expect(Schedule.wakesWriter(waiting: 1, isNew: true, threshold: 0))
        #expect(!Schedule.wakesWriter(waiting: 2, isNew: true, threshold: 0))
    }
}
