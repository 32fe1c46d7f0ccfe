import Foundation
import XCTest
@testable import Canopy

/// Every expected rectangle is worked by hand in the comments, for the viewport
/// (0, 1000, 400, 800): 800 pt tall, so one screenful is 800 pt.
final class RangeTuningTests: XCTestCase {
    private let viewport = CGRect(x: 0, y: 1000, width: 400, height: 800)
    private let tuning = RangeTuning()

    private func rect(
        _ tuning: RangeTuning, _ type: RangeType, _ mode: RangeMode, _ direction: ScrollDirection, speed: CGFloat = 0
    ) -> CGRect {
        tuning.rect(for: type, mode: mode, viewport: viewport, direction: direction, speed: speed)
    }

    func testDefaults() {
        XCTAssertEqual(
            RangeTuningParameters.defaults(for: .display, mode: .full),
            RangeTuningParameters(leadingBufferScreenfuls: 1.0, trailingBufferScreenfuls: 0.5))
        XCTAssertEqual(
            RangeTuningParameters.defaults(for: .preload, mode: .full),
            RangeTuningParameters(leadingBufferScreenfuls: 2.5, trailingBufferScreenfuls: 1.5))
        XCTAssertEqual(
            RangeTuningParameters.defaults(for: .display, mode: .minimum),
            RangeTuningParameters(leadingBufferScreenfuls: 0.25, trailingBufferScreenfuls: 0.25))
        XCTAssertEqual(
            RangeTuningParameters.defaults(for: .preload, mode: .minimum),
            RangeTuningParameters(leadingBufferScreenfuls: 0.5, trailingBufferScreenfuls: 0.25))
        XCTAssertEqual(RangeTuningParameters.zero, RangeTuningParameters(leadingBufferScreenfuls: 0, trailingBufferScreenfuls: 0))
        XCTAssertEqual(tuning.velocityLookahead, 0.5)
        XCTAssertEqual(tuning.maximumVelocityExtension, 2)
        for type in RangeType.allCases {
            for mode in RangeMode.allCases {
                XCTAssertEqual(tuning[type, mode], .defaults(for: type, mode: mode))
            }
        }
    }

    func testDisplayFull() {
        // Down: trailing 0.5 * 800 = 400 above, leading 1.0 * 800 = 800 below.
        // y = 1000 - 400 = 600; height = 400 + 800 + 800 = 2000.
        XCTAssertEqual(rect(tuning, .display, .full, .down), CGRect(x: 0, y: 600, width: 400, height: 2000))
        // Up: leading 800 above, trailing 400 below. y = 1000 - 800 = 200; height 2000.
        XCTAssertEqual(rect(tuning, .display, .full, .up), CGRect(x: 0, y: 200, width: 400, height: 2000))
    }

    func testDisplayMinimum() {
        // 0.25 * 800 = 200 on both sides whichever way: y = 800, height = 200 + 800 + 200 = 1200.
        XCTAssertEqual(rect(tuning, .display, .minimum, .down), CGRect(x: 0, y: 800, width: 400, height: 1200))
        XCTAssertEqual(rect(tuning, .display, .minimum, .up), CGRect(x: 0, y: 800, width: 400, height: 1200))
    }

    func testPreloadFull() {
        // Down: trailing 1.5 * 800 = 1200 above, leading 2.5 * 800 = 2000 below.
        // y = 1000 - 1200 = -200; height = 1200 + 800 + 2000 = 4000.
        XCTAssertEqual(rect(tuning, .preload, .full, .down), CGRect(x: 0, y: -200, width: 400, height: 4000))
        // Up: leading 2000 above, trailing 1200 below. y = 1000 - 2000 = -1000; height 4000.
        XCTAssertEqual(rect(tuning, .preload, .full, .up), CGRect(x: 0, y: -1000, width: 400, height: 4000))
    }

    func testPreloadMinimum() {
        // Down: trailing 0.25 * 800 = 200 above, leading 0.5 * 800 = 400 below.
        // y = 800; height = 200 + 800 + 400 = 1400.
        XCTAssertEqual(rect(tuning, .preload, .minimum, .down), CGRect(x: 0, y: 800, width: 400, height: 1400))
        // Up: leading 400 above, trailing 200 below. y = 600; height 1400.
        XCTAssertEqual(rect(tuning, .preload, .minimum, .up), CGRect(x: 0, y: 600, width: 400, height: 1400))
    }

    func testNoDirectionLeadsDownwardsWithoutVelocityExtension() {
        // As down: 400 above, 800 below: y 600, height 2000; the speed adds nothing.
        XCTAssertEqual(rect(tuning, .display, .full, .none), CGRect(x: 0, y: 600, width: 400, height: 2000))
        XCTAssertEqual(rect(tuning, .display, .full, .none, speed: 1200), CGRect(x: 0, y: 600, width: 400, height: 2000))
        // Preload full: 1200 above, 2000 below: y -200, height 4000.
        XCTAssertEqual(rect(tuning, .preload, .full, .none, speed: 1200), CGRect(x: 0, y: -200, width: 400, height: 4000))
        XCTAssertEqual(tuning.velocityExtension(viewportHeight: 800, speed: 1200, direction: .none), 0)
    }

    func testVelocityExtendsTheLeadingSideOnly() {
        // 1200 pt/s * 0.5 s = 600 pt, under the cap of 2 * 800 = 1600.
        XCTAssertEqual(tuning.velocityExtension(viewportHeight: 800, speed: 1200, direction: .down), 600)
        // Down: 400 above (unchanged), 800 + 600 = 1400 below. y 600; height 400 + 800 + 1400 = 2600.
        XCTAssertEqual(rect(tuning, .display, .full, .down, speed: 1200), CGRect(x: 0, y: 600, width: 400, height: 2600))
        // Up, with the sign of the speed ignored: 800 + 600 = 1400 above, 400 below.
        // y = 1000 - 1400 = -400; height 2600.
        XCTAssertEqual(rect(tuning, .display, .full, .up, speed: -1200), CGRect(x: 0, y: -400, width: 400, height: 2600))
        XCTAssertEqual(rect(tuning, .display, .full, .up, speed: 1200), CGRect(x: 0, y: -400, width: 400, height: 2600))
        // Preload full down: 1200 above, 2000 + 600 = 2600 below. y -200; height 1200 + 800 + 2600 = 4600.
        XCTAssertEqual(rect(tuning, .preload, .full, .down, speed: 1200), CGRect(x: 0, y: -200, width: 400, height: 4600))
    }

    func testVelocityExtensionIsCapped() {
        // 10000 pt/s * 0.5 s = 5000 pt, capped at 2 screenfuls = 1600 pt.
        XCTAssertEqual(tuning.velocityExtension(viewportHeight: 800, speed: 10000, direction: .down), 1600)
        XCTAssertEqual(tuning.velocityExtension(viewportHeight: 800, speed: -10000, direction: .up), 1600)
        // Down: 400 above, 800 + 1600 = 2400 below. y 600; height 400 + 800 + 2400 = 3600.
        XCTAssertEqual(rect(tuning, .display, .full, .down, speed: 10000), CGRect(x: 0, y: 600, width: 400, height: 3600))
        // An infinite speed is capped the same.
        XCTAssertEqual(tuning.velocityExtension(viewportHeight: 800, speed: .infinity, direction: .down), 1600)
    }

    func testCustomVelocitySettings() {
        var custom = RangeTuning()
        custom.velocityLookahead = 0.25
        custom.maximumVelocityExtension = 1
        // 2000 pt/s * 0.25 s = 500 pt, under the cap 1 * 800 = 800.
        XCTAssertEqual(custom.velocityExtension(viewportHeight: 800, speed: 2000, direction: .down), 500)
        // 4000 pt/s * 0.25 s = 1000 pt, capped at 800.
        XCTAssertEqual(custom.velocityExtension(viewportHeight: 800, speed: 4000, direction: .down), 800)
        custom.velocityLookahead = 0
        XCTAssertEqual(custom.velocityExtension(viewportHeight: 800, speed: 4000, direction: .down), 0)
    }

    func testZeroTuningGivesTheViewport() {
        XCTAssertEqual(RangeTuning.zero.velocityLookahead, 0)
        XCTAssertEqual(RangeTuning.zero.maximumVelocityExtension, 0)
        for type in RangeType.allCases {
            for mode in RangeMode.allCases {
                XCTAssertEqual(RangeTuning.zero[type, mode], .zero)
                for direction in [ScrollDirection.none, .up, .down] {
                    XCTAssertEqual(rect(.zero, type, mode, direction, speed: 5000), viewport)
                }
            }
        }
        XCTAssertNotEqual(RangeTuning.zero, RangeTuning())
    }

    func testSubscriptSetAndGet() {
        var custom = RangeTuning()
        custom[.display, .full] = RangeTuningParameters(leadingBufferScreenfuls: 3, trailingBufferScreenfuls: 1)
        XCTAssertEqual(custom[.display, .full], RangeTuningParameters(leadingBufferScreenfuls: 3, trailingBufferScreenfuls: 1))
        // The others keep Texture's defaults.
        XCTAssertEqual(
            custom[.display, .minimum], RangeTuningParameters(leadingBufferScreenfuls: 0.25, trailingBufferScreenfuls: 0.25))
        XCTAssertEqual(
            custom[.preload, .full], RangeTuningParameters(leadingBufferScreenfuls: 2.5, trailingBufferScreenfuls: 1.5))
        XCTAssertEqual(
            custom[.preload, .minimum], RangeTuningParameters(leadingBufferScreenfuls: 0.5, trailingBufferScreenfuls: 0.25))
        // Down: 1 * 800 = 800 above, 3 * 800 = 2400 below. y 200; height 800 + 800 + 2400 = 4000.
        XCTAssertEqual(rect(custom, .display, .full, .down), CGRect(x: 0, y: 200, width: 400, height: 4000))
        XCTAssertNotEqual(custom, RangeTuning())

        custom[.preload, .minimum].trailingBufferScreenfuls = 2
        XCTAssertEqual(
            custom[.preload, .minimum], RangeTuningParameters(leadingBufferScreenfuls: 0.5, trailingBufferScreenfuls: 2))
        // Up: leading 0.5 * 800 = 400 above, trailing 2 * 800 = 1600 below. y 600; height 400 + 800 + 1600 = 2800.
        XCTAssertEqual(rect(custom, .preload, .minimum, .up), CGRect(x: 0, y: 600, width: 400, height: 2800))
    }

    func testNaNSpeedCountsAsZero() {
        XCTAssertEqual(tuning.velocityExtension(viewportHeight: 800, speed: .nan, direction: .down), 0)
        // As with no speed: 400 above, 800 below: y 600, height 2000.
        XCTAssertEqual(rect(tuning, .display, .full, .down, speed: .nan), CGRect(x: 0, y: 600, width: 400, height: 2000))
        // Up: 800 above, 400 below: y 200, height 2000.
        XCTAssertEqual(rect(tuning, .display, .full, .up, speed: .nan), CGRect(x: 0, y: 200, width: 400, height: 2000))
    }

    func testInvalidSettingsCountAsZero() {
        var custom = RangeTuning()
        custom[.display, .full] = RangeTuningParameters(leadingBufferScreenfuls: -1, trailingBufferScreenfuls: .nan)
        custom[.preload, .full] = RangeTuningParameters(leadingBufferScreenfuls: .infinity, trailingBufferScreenfuls: -.infinity)
        custom.velocityLookahead = .nan
        XCTAssertEqual(rect(custom, .display, .full, .down, speed: 1200), viewport)
        XCTAssertEqual(rect(custom, .preload, .full, .up, speed: 1200), viewport)

        custom = RangeTuning()
        custom.velocityLookahead = -1
        XCTAssertEqual(custom.velocityExtension(viewportHeight: 800, speed: 1200, direction: .down), 0)
        custom.velocityLookahead = 0.5
        custom.maximumVelocityExtension = .nan
        XCTAssertEqual(custom.velocityExtension(viewportHeight: 800, speed: 1200, direction: .down), 0)
        custom.maximumVelocityExtension = 2
        XCTAssertEqual(custom.velocityExtension(viewportHeight: -800, speed: 1200, direction: .down), 0)
        XCTAssertEqual(custom.velocityExtension(viewportHeight: .nan, speed: 1200, direction: .down), 0)
    }

    func testHorizontalExtentIsTheViewports() {
        let wide = CGRect(x: 37, y: 1000, width: 123, height: 800)
        for type in RangeType.allCases {
            for mode in RangeMode.allCases {
                for direction in [ScrollDirection.none, .up, .down] {
                    let r = tuning.rect(for: type, mode: mode, viewport: wide, direction: direction, speed: 3000)
                    XCTAssertEqual(r.origin.x, 37)
                    XCTAssertEqual(r.size.width, 123)
                }
            }
        }
    }
}
