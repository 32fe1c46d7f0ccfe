import Canopy
import CanopyGraphics
import Foundation

extension ScreenshotCommand {
    @MainActor
    func execute() throws {
        // Scrolled down, the first screen is not the one shown.
        let session = try Session(
            collection: collection, headless: true, rendering: rendering, decodesAhead: !mode.mainThread && scroll == 0)
        defer { session.app.close() }
        let app = session.app, viewer = session.viewer
        session.show(overlays)
        viewer.mode = mode
        app.statusLines = { [viewer.source.statusLine] }
        let target = CGFloat(scroll)
        viewer.scroll(to: target)

        // Turn until every visible card is displayed, then capture one more frame. With the
        // FPS overlay, draw a second of frames first, so its figures and graph have data.
        let minimumFrames = app.showsFPS ? 60 : 1
        let deadline = MonotonicClock.now() + timeout
        var complete = false
        var frames = 0
        while MonotonicClock.now() < deadline {
            app.runTurn()
            frames += 1
            // Pages arrive by batch fetching (a folder's first one too): follow them down to
            // --scroll, until it is reached or every card is loaded.
            let collection = viewer.collection
            if collection.contentOffset < target && collection.maximumContentOffset > collection.contentOffset {
                viewer.scroll(to: target)
            }
            let scrolled = collection.contentOffset >= target || (viewer.source.isComplete && !collection.batchContext.isFetching)
            if viewer.isSettled && scrolled && frames >= minimumFrames { complete = true; break }
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
        }
        guard let frame = app.captureFrame() else {
            throw UserFacingError(message: "could not read the rendered frame back from the renderer", status: 1)
        }
        do {
            try frame.writePNG(to: output)
        } catch {
            throw UserFacingError(message: error.description, status: 1)
        }
        if !complete {
            throw UserFacingError(
                message: "timed out after \(timeout) s before every visible card was displayed; wrote \(output) anyway", status: 1
            )
        }
        print(
            "wrote \(output) (\(frame.width)x\(frame.height) px, \(viewer.visibleIndices.count) cards visible, \(app.rendererName) renderer)"
        )
    }
}
