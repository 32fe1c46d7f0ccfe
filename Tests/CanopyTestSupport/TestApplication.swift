import CanopyGraphics
import CanopySDL
import Foundation
import XCTest

/// A headless application for tests, and turning one until something has happened.
public enum TestApplication {
    /// A headless application without the FPS overlay, drawing on white: what each frame shows is
    /// the test's layers alone. The caller closes it.
    @MainActor
    public static func headless(
        width: CGFloat, height: CGFloat, renderDriver: String? = nil,
        fonts: FontRegistry = .shared
    ) throws -> Application {
        let options = Application.Options(
            title: "test", size: CGSize(width: width, height: height),
            overlayFont: Font(family: TestFonts.family, size: 14), headless: true,
            fonts: fonts, renderDriver: renderDriver)
        let app = try Application(options: options)
        app.showsFPS = false
        app.clearColor = Color(white: 1)
        return app
    }

    /// Turns `app`, a frame at a time, until `done()` (with HangGuard's hang guard, not a timing
    /// check); fails where it was called if `done()` never came true.
    @MainActor
    public static func turn(
        _ app: Application, until done: () -> Bool, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let came = HangGuard.wait(until: done, pause: 0) {
            app.runTurn()
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
        }
        XCTAssertTrue(came, file: file, line: line)
    }
}
