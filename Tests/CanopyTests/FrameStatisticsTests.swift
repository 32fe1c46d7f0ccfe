import Foundation
import XCTest
@testable import Canopy

final class FrameStatisticsTests: XCTestCase {
    func testPercentilesUseNearestRank() {
        let values = (1...100).map(Double.init)
        XCTAssertEqual(FrameStatistics.percentile(50, of: values), 50)
        XCTAssertEqual(FrameStatistics.percentile(99, of: values), 99)
        XCTAssertEqual(FrameStatistics.percentile(100, of: values), 100)
        XCTAssertNil(FrameStatistics.percentile(50, of: []))
    }

    func testTheRingKeepsTheMostRecentFramesInOrder() {
        var stats = FrameStatistics(capacity: 4)
        for i in 0..<10 { stats.record(start: Double(i), workMs: Double(i), intervalMs: 16) }
        XCTAssertEqual(stats.recent(10).map(\.workMs), [6, 7, 8, 9])
        XCTAssertEqual(stats.recent(2).map(\.workMs), [8, 9])
        XCTAssertEqual(stats.totalFrames, 10)
    }

    func testFramesPerSecondIgnoresIdleGaps() {
        var stats = FrameStatistics()
        // 30 frames at 60 Hz, then the app slept (the next frame has no interval).
        for i in 0..<30 { stats.record(start: Double(i) / 60, workMs: 2, intervalMs: i == 0 ? nil : 1000.0 / 60) }
        stats.record(start: 0.9, workMs: 2, intervalMs: nil)
        XCTAssertEqual(stats.framesPerSecond(now: 0.95)!, 60, accuracy: 0.01)
        XCTAssertEqual(stats.totalLate, 0)
        XCTAssertEqual(stats.totalOverruns, 0)
    }

    func testAPresentMoreThanOneAndAHalfPeriodsAfterThePreviousIsLate() {
        var stats = FrameStatistics(budgetMs: 10)
        let intervals: [Double?] = [nil, 10, 15, 15.1, 30, 12, 16, 40, nil, 10]
        for (i, interval) in intervals.enumerated() {
            stats.record(start: Double(i), workMs: i == 5 ? 11 : 2, intervalMs: interval)
        }
        XCTAssertEqual(stats.recent(10).map(\.isLate), [false, false, false, true, true, false, true, true, false, false])
        XCTAssertEqual(stats.totalLate, 4)
        XCTAssertEqual(stats.longestLateRun, 2, "15.1 and 30 in a row, then 16 and 40")
        XCTAssertEqual(stats.recent(10).map(\.overran), (0..<10).map { $0 == 5 }, "the main thread's own overrun")
        XCTAssertEqual(stats.totalOverruns, 1)
        XCTAssertEqual(stats.intervalPercentile(50, last: 10), 15)
    }
}
