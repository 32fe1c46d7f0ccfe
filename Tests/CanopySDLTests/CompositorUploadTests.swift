import Canopy
import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest
@testable import CanopySDL

/// The compositor's uploads: through the run-loop queue within the budget, old contents kept
/// on screen while new ones wait, textures released when contents go.
final class CompositorUploadTests: XCTestCase {
    private static let red = Color(red: 1, green: 0, blue: 0)
    private static let blue = Color(red: 0, green: 0, blue: 1)

    func testNewContentsWaitForTheBudgetAndTheOldOnesStayMeanwhile() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100)
            defer { app.close() }
            let shown = Layer(frame: CGRect(x: 0, y: 0, width: 50, height: 50))
            shown.contents = Bitmap(width: 8, height: 8, fill: Self.red)
            app.rootLayer.setSublayers([shown])
            var frame = try XCTUnwrap(app.captureFrame())
            XCTAssertTrue(shown.isContentsPresented)
            XCTAssertTrue(SDLTestSupport.rgb(frame, 25, 25) == (255, 0, 0))

            // A zero budget: one upload a turn. Three other layers get contents first, then the
            // shown one changes to blue: it keeps drawing red until its turn comes.
            app.compositor.uploadBudget = 0
            let others = (0..<3).map { i in
                let layer = Layer(frame: CGRect(x: 60 + CGFloat(i) * 40, y: 0, width: 30, height: 30))
                layer.contents = Bitmap(width: 4, height: 4, fill: Self.blue)
                return layer
            }
            app.rootLayer.setSublayers([shown] + others)
            shown.contents = Bitmap(width: 8, height: 8, fill: Self.blue)
            XCTAssertEqual(app.compositor.pendingUploads, 4)
            frame = try XCTUnwrap(app.captureFrame())
            XCTAssertEqual(app.compositor.pendingUploads, 3, "one upload per turn at a zero budget")
            XCTAssertTrue(SDLTestSupport.rgb(frame, 25, 25) == (255, 0, 0), "the old contents stay while the new wait")
            XCTAssertTrue(SDLTestSupport.rgb(frame, 155, 15) == (255, 255, 255), "the third layer has nothing on screen yet")
            for _ in 0..<3 { frame = try XCTUnwrap(app.captureFrame()) }
            XCTAssertEqual(app.compositor.pendingUploads, 0)
            XCTAssertTrue(SDLTestSupport.rgb(frame, 25, 25) == (0, 0, 255))
            XCTAssertTrue(SDLTestSupport.rgb(frame, 155, 15) == (0, 0, 255))
            XCTAssertTrue(shown.isContentsPresented)
        }
    }

    func testTheBudgetBoundsTheUploadsOfATurn() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100)
            defer { app.close() }
            // A budget only a hang exceeds uploads everything in one turn, however slow the machine...
            app.compositor.uploadBudget = HangGuard.seconds
            let layers = (0..<6).map { _ in
                let layer = Layer(frame: CGRect(x: 0, y: 0, width: 10, height: 10))
                layer.contents = Bitmap(width: 64, height: 64, fill: Self.red)
                return layer
            }
            app.rootLayer.setSublayers(layers)
            app.runTurn()
            XCTAssertEqual(app.compositor.pendingUploads, 0)
            XCTAssertEqual(app.compositor.textureBytes, 6 * 64 * 64 * 4)
            // ...and a zero one spreads them over turns, asking for frames until done.
            app.compositor.uploadBudget = 0
            for layer in layers { layer.contents = Bitmap(width: 64, height: 64, fill: Self.blue) }
            var turns = 0
            while app.compositor.pendingUploads > 0 && turns < 100 {
                XCTAssertTrue(app.runLoop.needsFrame, "waiting uploads ask for frames")
                app.runTurn()
                turns += 1
            }
            XCTAssertEqual(turns, 6)
            XCTAssertEqual(app.compositor.textureBytes, 6 * 64 * 64 * 4, "replaced textures were released")
        }
    }

    func testTexturesAreReleasedWhenContentsAreClearedOrTheLayerGoes() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100)
            defer { app.close() }
            // Both uploads in the first turn, however slow the machine (the default 4 ms budget
            // leaves the second for the next turn when the first takes longer).
            app.compositor.uploadBudget = HangGuard.seconds
            var kept: Layer? = Layer(frame: CGRect(x: 0, y: 0, width: 10, height: 10))
            let cleared = Layer(frame: CGRect(x: 20, y: 0, width: 10, height: 10))
            kept!.contents = Bitmap(width: 16, height: 16, fill: Self.red)
            cleared.contents = Bitmap(width: 32, height: 32, fill: Self.red)
            app.rootLayer.setSublayers([kept!, cleared])
            app.runTurn()
            XCTAssertEqual(app.compositor.textureBytes, (16 * 16 + 32 * 32) * 4)
            cleared.contents = nil
            XCTAssertNil(cleared.backing, "cleared contents leave the screen at once")
            app.runTurn()
            XCTAssertEqual(app.compositor.textureBytes, 16 * 16 * 4)
            app.rootLayer.setSublayers([])
            kept = nil
            app.runTurn()  // the compositor notices the layer is gone at the end of the frame
            app.runTurn()  // and releases its texture through the queue
            XCTAssertEqual(app.compositor.textureBytes, 0)
        }
    }

    /// Turns (at least one) until nothing is due, the timed frames included: a trim waits for the
    /// work to have been quiet for `memoryTrimQuietTime` of wall-clock time (the application has no
    /// clock of its own to inject), so this waits for the trim, not for a time.
    @MainActor
    private static func settle(_ app: Application, file: StaticString = #filePath, line: UInt = #line) {
        app.runTurn()
        // The pause between turns only lets the quiet time pass: sleeping longer is always fine.
        let settled = HangGuard.wait(until: { !app.runLoop.needsFrame && !app.isMemoryTrimDue }, pause: 0.01) {
            app.runTurn()
        }
        XCTAssertTrue(settled, "a frame or a memory trim stayed due", file: file, line: line)
    }

    func testFreeMemoryIsReturnedOnceAfterABurstOfUploadsHasBeenQuiet() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100)
            defer { app.close() }
            app.memoryTrimQuietTime = 0.05
            // Every upload and release in its first turn, however slow the machine: spread over
            // turns further apart than the quiet time, one burst would be trimmed twice.
            app.compositor.uploadBudget = HangGuard.seconds
            @MainActor func settle(line: UInt = #line) { Self.settle(app, line: line) }
            settle()
            let before = app.memoryTrimCount
            app.waitForMemoryTrims()
            _ = app.takeMemoryTrimTimes()
            // Quiet turns: nothing to give back.
            for _ in 0..<5 { app.runTurn() }
            XCTAssertEqual(app.memoryTrimCount, before)
            // A burst: textures made...
            app.rootLayer.setSublayers(
                (0..<4).map { _ in
                    let layer = Layer(frame: CGRect(x: 0, y: 0, width: 40, height: 40))
                    layer.contents = Bitmap(width: 256, height: 256, fill: Self.red)
                    return layer
                })
            app.runTurn()
            XCTAssertEqual(app.compositor.textureBytes, 4 * 256 * 256 * 4)
            XCTAssertEqual(app.memoryTrimCount, before, "not while the work goes on")
            XCTAssertTrue(app.isMemoryTrimDue)
            settle()
            XCTAssertEqual(app.memoryTrimCount, before + 1, "once, when the work has been quiet")
            XCTAssertFalse(app.isMemoryTrimDue)
            // Each trim's time is taken once.
            app.waitForMemoryTrims()
            let times = app.takeMemoryTrimTimes()
            XCTAssertEqual(times.count, 1)
            XCTAssertGreaterThan(times.longest, 0)
            XCTAssertEqual(app.takeMemoryTrimTimes().count, 0)
            // ...then released: another burst.
            app.rootLayer.setSublayers([])
            settle()
            XCTAssertEqual(app.compositor.textureBytes, 0, "released")
            XCTAssertEqual(app.memoryTrimCount, before + 2, "and once after the textures are released")
            for _ in 0..<5 { app.runTurn() }
            XCTAssertEqual(app.memoryTrimCount, before + 2, "not again without new work")
        }
    }

    /// The compositor's scratch textures (a rounded clip's target, its corner mask) are made and
    /// evicted without any layer texture changing: both count as work, so each is followed by
    /// a trim.
    func testMakingAndEvictingScratchTexturesIsWorkForTheMemoryTrim() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100)
            defer { app.close() }
            app.memoryTrimQuietTime = 0.05
            app.compositor.evictionAge = 3
            Self.settle(app)
            let before = app.memoryTrimCount
            let rounded = Layer(frame: CGRect(x: 10, y: 10, width: 80, height: 60))
            rounded.cornerRadius = 10
            rounded.clipsToBounds = true
            let inside = Layer(frame: CGRect(x: 0, y: 0, width: 100, height: 100))
            inside.backgroundColor = Self.blue
            rounded.addSublayer(inside)
            app.rootLayer.setSublayers([rounded])
            app.runTurn()
            XCTAssertGreaterThan(app.compositor.scratchTextureBytes, 0)
            XCTAssertEqual(app.compositor.textureBytes, 0)
            Self.settle(app)
            XCTAssertEqual(app.memoryTrimCount, before + 1, "after the scratch textures were made")
            // Gone from the tree: the textures go after the eviction age, in frames.
            app.rootLayer.setSublayers([])
            for _ in 0..<10 where app.compositor.scratchTextureBytes > 0 {
                app.runLoop.setNeedsFrame()
                app.runTurn()
            }
            XCTAssertEqual(app.compositor.scratchTextureBytes, 0)
            Self.settle(app)
            XCTAssertEqual(app.memoryTrimCount, before + 2, "after they were evicted")
        }
    }

    /// The overlays' textures (the FPS overlay's text, remade while it shows) are not work: once
    /// showing the overlay has settled (its scratch textures are made once, and trimmed after),
    /// its text changing keeps no trim due.
    func testTheOverlaysTexturesAreNotWorkForTheMemoryTrim() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100, fonts: TestFonts.registry)
            defer { app.close() }
            app.memoryTrimQuietTime = 0.05
            Self.settle(app)
            app.showsFPS = true
            @MainActor func turn() {
                app.runLoop.setNeedsFrame()
                app.runTurn()
            }
            XCTAssertTrue(
                HangGuard.wait(until: { app.compositor.textureBytes > 0 && !app.isMemoryTrimDue }, pause: 0.01) { turn() },
                "the overlay shows and what showing it made is trimmed")
            let trims = app.memoryTrimCount
            // Its text remade twice (the bytes of the textures drawn directly changed twice),
            // the layers' textures untouched: no trim comes due.
            var changes = 0, last = app.compositor.textureBytes
            let remade = HangGuard.wait(until: { changes >= 2 }, pause: 0.01) {
                turn()
                if app.compositor.textureBytes != last {
                    changes += 1
                    last = app.compositor.textureBytes
                    XCTAssertFalse(app.isMemoryTrimDue, "after \(changes) changes of the overlay's textures")
                }
            }
            XCTAssertTrue(remade, "the FPS text was remade")
            XCTAssertEqual(app.compositor.layerTextureBytes, 0)
            XCTAssertEqual(app.memoryTrimCount, trims)
        }
    }

    func testTheOpenGLRendererThrottlesItsFramesAndStillShowsEachOne() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100)
            defer { app.close() }
            try XCTSkipUnless(app.rendererName == "opengl", "the \(app.rendererName) renderer has no fences")
            let throttle = try XCTUnwrap(app.frameThrottle, "fences are on")
            let layer = Layer(frame: CGRect(x: 0, y: 0, width: 50, height: 50))
            app.rootLayer.setSublayers([layer])
            // Presents that read nothing back run ahead of the driver but for the throttle: every
            // fenceInterval presents a fence marks one, and the one before is waited for, so one
            // fence at most is ever pending.
            let interval = throttle.fenceInterval
            XCTAssertGreaterThan(interval, 1)
            for turn in 0..<(3 * interval) {
                layer.contents = Bitmap(width: 8, height: 8, fill: turn % 2 == 0 ? Self.red : Self.blue)
                app.runLoop.setNeedsFrame()
                app.runTurn()
                XCTAssertEqual(throttle.fences.count, turn + 1 < interval ? 0 : 1, "turn \(turn)")
            }
            for turn in 0..<6 {
                layer.contents = Bitmap(width: 8, height: 8, fill: turn % 2 == 0 ? Self.red : Self.blue)
                let frame = try XCTUnwrap(app.captureFrame())
                XCTAssertTrue(SDLTestSupport.rgb(frame, 25, 25) == (turn % 2 == 0 ? (255, 0, 0) : (0, 0, 255)), "turn \(turn)")
            }
        }
    }

    func testAnImmediateUploadIgnoresTheQueue() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100)
            defer { app.close() }
            let layer = Layer(frame: CGRect(x: 0, y: 0, width: 10, height: 10))
            app.rootLayer.addSublayer(layer)
            layer.prefersImmediateUpload = true
            layer.contents = Bitmap(width: 4, height: 4, fill: Self.red)
            XCTAssertTrue(layer.isContentsPresented, "uploaded when set, before any turn")
            XCTAssertEqual(app.compositor.pendingUploads, 0)
        }
    }

    func testFadeOpacityScalesWhatALayerDraws() throws {
        try MainActor.assumeIsolated {
            let app = try TestApplication.headless(width: 200, height: 100)
            defer { app.close() }
            let layer = Layer(frame: CGRect(x: 0, y: 0, width: 50, height: 50))
            layer.backgroundColor = .black
            layer.fadeOpacity = 0.5
            app.rootLayer.addSublayer(layer)
            let frame = try XCTUnwrap(app.captureFrame())
            let p = SDLTestSupport.rgb(frame, 25, 25)
            XCTAssertEqual(Double(p.0), 127.5, accuracy: 2)
        }
    }
}
