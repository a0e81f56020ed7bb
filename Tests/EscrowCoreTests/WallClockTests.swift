import EscrowCore
import Foundation
import Testing

@Suite struct WallClockTests {
    @Test func theSystemClockTellsTheSameTimeAsFoundation() {
        let clock = SystemWallClock()
        let before = Date().timeIntervalSince1970
        let now = clock.secondsSince1970
        let after = Date().timeIntervalSince1970
        // Generous margins: the two clocks are read a few microseconds apart, but a loaded
        // machine may deschedule the test between the reads.
        #expect(now >= before - 1 && now <= after + 1, "system \(now), Foundation \(before)…\(after)")
        let readings = (0..<100).map { _ in clock.secondsSince1970 }
        #expect(readings.contains { $0 != $0.rounded(.down) }, "the clock has sub-second resolution")
    }

    @Test func nowGivesTheSecondsAndTheTimestampOfOneInstant() {
        let now = SystemWallClock().now()
        #expect(now.text == Timestamp.format(secondsSince1970: now.seconds))
        #expect(Timestamp.parse(now.text).map { abs($0 - now.seconds) < 0.001 } == true)
    }
}
