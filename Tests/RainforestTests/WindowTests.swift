import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest

/// The windowed app as a user meets it: `rainforest` in a real X11 window under Xvfb, driven
/// with xdotool (wheel clicks, keys), looked at with ImageMagick's `import`. Skipped where
/// those tools are missing (`make setup` installs them).
final class WindowTests: XCTestCase {
    private var xvfb: Process?
    private var display = ""
    private var scratch: URL!

    private static func tool(_ name: String) -> String? {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        return nil
    }

    override func setUpWithError() throws {
        guard let xvfbPath = Self.tool("Xvfb"), Self.tool("xdotool") != nil, Self.tool("import") != nil else {
            throw XCTSkip("Xvfb, xdotool or ImageMagick's import is not installed")
        }
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rainforest-window-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // A display number nobody uses: Xvfb writes the one it chose to the fd we give it.
        let pipe = Pipe()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: xvfbPath)
        server.arguments = ["-displayfd", "1", "-screen", "0", "1280x900x24", "-nolisten", "tcp"]
        server.standardOutput = pipe
        server.standardError = FileHandle.nullDevice
        try server.run()
        xvfb = server
        var text = ""
        while !text.contains("\n") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let number = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !number.isEmpty else { throw XCTSkip("Xvfb did not start") }
        display = ":\(number)"
    }

    override func tearDownWithError() throws {
        xvfb?.terminate()
        xvfb?.waitUntilExit()
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    @discardableResult
    private func shell(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.tool(tool)!)
        process.arguments = arguments
        process.environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The app's environment: the test display and no more, but for a sanitized run's settings
    /// (make test-asan, make test-tsan), which must reach the app too.
    private func appEnvironment() -> [String: String] {
        var environment = ["DISPLAY": display, "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        for key in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "LD_PRELOAD", "SWIFT_BACKTRACE"] {
            if let value = ProcessInfo.processInfo.environment[key] { environment[key] = value }
        }
        return environment
    }

    private func capture(_ window: String, _ name: String) throws -> Bitmap {
        let file = scratch.appendingPathComponent("\(name).png").path
        try shell("import", ["-window", window, file])
        return try ImageDecoder.decode(contentsOf: file)
    }

    /// Captures the window until `shows` holds for the capture (the app draws at its own pace:
    /// however slow the machine, the picture comes; a hang guard, not a timing check), and
    /// returns the last capture, for the caller's assertions to say what is missing if it never
    /// came.
    private func capture(_ window: String, _ name: String, when shows: (Bitmap) -> Bool) throws -> Bitmap {
        var shot = try capture(window, name)
        var failure: Error?
        _ = HangGuard.wait(until: { failure != nil || shows(shot) }, pause: 0.1) {
            do { shot = try capture(window, name) } catch { failure = error }
        }
        if let failure { throw failure }
        return shot
    }

    private func grey(_ b: Bitmap, _ x: Int, _ y: Int) -> Int { Int(b.pixel(x: x, y: y).g) }
    private func isBackground(_ b: Bitmap, _ x: Int, _ y: Int) -> Bool {
        let p = b.pixel(x: x, y: y)
        return p.r == 28 && p.g == 28 && p.b == 28
    }

    /// Starts the app with `arguments` in a window, runs `body` with the window's id, then
    /// presses Ctrl+Q: the process must end (status 0, a normal exit) and say nothing on
    /// standard error.
    private func runApp(_ arguments: [String], _ body: (_ window: String) throws -> Void) throws {
        let app = Process()
        app.executableURL = CommandLineTests.binary
        app.arguments = arguments
        app.environment = appEnvironment()
        app.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        app.standardError = errors
        try app.run()
        defer {
            if app.isRunning { app.terminate() }
            // Also lets Foundation release the Process, which holds itself until the run loop
            // of the thread that started it hears of the exit (make test-asan found it leaked).
            app.waitUntilExit()
        }
        let window =
            try shell("timeout", ["\(Int(HangGuard.seconds))", "xdotool", "search", "--sync", "--class", "rainforest"])
            .split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertFalse(window.isEmpty, "the window appeared")
        try body(window)
        try shell("xdotool", ["key", "--window", window, "ctrl+q"])
        XCTAssertTrue(HangGuard.wait(until: { !app.isRunning }, pause: 0.01), "Ctrl+Q quits")
        if !app.isRunning {
            XCTAssertEqual(app.terminationReason, .exit)
            XCTAssertEqual(app.terminationStatus, 0)
        }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(stderr, "", "nothing on standard error")
    }

    func testTheWindowOpensScrollsWithTheWheelAndQuitsWithControlQ() throws {
        try runApp(["--size", "1280x800", "--overlays", ""]) { window in
            try GraphicsLibrary.initialize()
            let before = try capture(window, "before") { !isBackground($0, 400, 195) }
            XCTAssertEqual(before.width, 1280)
            // The first card (a 16:9 photo) spans y 10 to 490 in the left column (x 315 to 635).
            XCTAssertFalse(isBackground(before, 400, 195), "the first card")
            XCTAssertEqual(grey(before, 400, 495), 28)

            // Three wheel clicks: 300 pt, animated, so the card's bottom edge moves to y 190.
            try shell("xdotool", ["mousemove", "--window", window, "600", "400"])
            for _ in 0..<3 { try shell("xdotool", ["click", "--window", window, "5"]) }
            // Captured until the animation has ended (the gap where the card's bottom comes to rest).
            let after = try capture(window, "after") { grey($0, 400, 195) == 28 }
            XCTAssertFalse(isBackground(after, 400, 185), "still the first card")
            XCTAssertEqual(grey(after, 400, 195), 28, "the gap below it, 300 pt higher than before")
        }
    }

    func testQuittingWhileCardsAreDecodingAndDrawingExitsCleanly() throws {
        // 40 photos (distinct files, so each card decodes its own), End pressed so that the
        // cards at the end are being made, decoded and drawn, and Ctrl+Q at once: the process
        // ends with status 0 and says nothing (docs/ARCHITECTURE.md, "Hostile input", gives the
        // time it takes).
        let folder = scratch.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: HostileImages.photos.appendingPathComponent("red-panda.jpg"))
        for number in 1...40 { try jpeg.write(to: folder.appendingPathComponent("photo-\(number).jpg")) }
        try runApp(["--images", folder.path, "--size", "1280x800"]) { window in
            try shell("xdotool", ["key", "--window", window, "End"])
        }
    }
}
