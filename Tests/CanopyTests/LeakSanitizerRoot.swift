import XCTest

/// Keeps every finished test suite, the root one last, in a global, so that LeakSanitizer
/// (`make test-asan`) sees what XCTest still holds when the test process exits.
///
/// XCTest keeps its root suite, and through it every test case and whatever the cases keep,
/// until it calls `exit`, but not anywhere LeakSanitizer can find it (XCTMain holds the suite
/// in an enum value, and Swift stores an enum's tag in the spare bits of the pointer), so at
/// exit LeakSanitizer reported the whole of XCTest's state as leaked. A global array of the
/// suites is a root it does see: what it still reports is memory that nothing holds, such as a
/// retain cycle. Nothing is suppressed.
final class LeakSanitizerRoot: NSObject, XCTestObservation {
    nonisolated(unsafe) private static var suites: [XCTestSuite] = []
    /// Set on the main thread, where XCTest runs the tests and calls its observers.
    nonisolated(unsafe) private(set) static var registered = false

    /// Registers the observer once; any time before the root suite finishes will do, since the
    /// suites are kept as they finish.
    static func register() {
        guard !registered else { return }
        registered = true
        XCTestObservationCenter.shared.addTestObserver(LeakSanitizerRoot())
    }

    func testSuiteDidFinish(_ testSuite: XCTestSuite) {
        Self.suites.append(testSuite)
    }
}

/// Registers `LeakSanitizerRoot` whenever CanopyTests run (`make test-asan` runs every test).
final class LeakSanitizerRootTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        LeakSanitizerRoot.register()
    }

    func testTheObserverIsRegistered() {
        XCTAssertTrue(LeakSanitizerRoot.registered)
    }
}
