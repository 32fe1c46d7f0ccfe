import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

extension BenchCommand {
    /// Frames drawn at the top before measuring, so start-up (the renderer's first use) does
    /// not count as scrolling.
    static let warmUpFrames = 30

    @MainActor
    func execute() throws {
        var options = collection
        if options.cards == nil && options.images == nil { options.cards = 1000 }
        let content = try Content.load(options)
        var report = BenchReport(environment: .init(cores: ProcessInfo.processInfo.activeProcessorCount))
        if scenario.contains(.scrolling) {
            try runScrolling(options: options, content: content, into: &report)
        }
        if scenario.contains(.graphics) || scenario.contains(.layout) {
            do {
                try GraphicsLibrary.initialize()  // the card nodes' texts are measured with SDL_ttf
            } catch {
                throw UserFacingError(message: error.message, status: 1)
            }
        }
        if scenario.contains(.graphics) {
            print("bench: graphics, each step on one thread, median of 31 runs after a warm-up")
            let results = try GraphicsBenchmark(resources: content.resources, deck: content.deck).run()
            report.graphics = results
            report.graphicsRatios = GraphicsBenchmark.naiveBlurRatios(results)
            print(GraphicsBenchmark.table(results))
        }
        if scenario.contains(.layout) {
            print("bench: layout of the card's spec tree and of its nodes, on one thread, median of 15 runs after a warm-up")
            let result = LayoutBenchmark(deck: content.deck).run()
            report.layout = result
            print(LayoutBenchmark.table(result))
        }
        if scenario.contains(.display) {
            print("bench: display pipeline, main-thread cost per card (median of 31 rounds of 8 cards) and display workers")
            let result = try runDisplay(content: content)
            report.display = result
            print(DisplayBenchmark.table(result))
        }
        if let json {
            do {
                try report.writeJSON(to: json)
                print("wrote \(json)")
            } catch {
                throw UserFacingError(message: "\(json): cannot write (\(error.localizedDescription))", status: 1)
            }
        }
    }

    @MainActor
    private func runDisplay(content: Content) throws -> DisplayBenchmark.Result {
        let app: Application
        do {
            app = try Application(
                options: .init(
                    title: "Rainforest bench", size: Session.defaultSize.cgSize,
                    overlayFont: Session.overlayFont, minimumSize: WindowSize.minimum.cgSize,
                    headless: true))
        } catch {
            throw UserFacingError(message: "bench: \(error)", status: 1)
        }
        defer { app.close() }
        app.showsFPS = false
        let jpeg = content.resources.imageURL("images/red-panda.jpg").path
        let photo: Bitmap
        do {
            photo = try ImageDecoder.decode(contentsOf: jpeg)
        } catch {
            throw UserFacingError(message: "bench: \(error.description)")
        }
        let artist = try GraphicsBenchmark.sampleArtist(photoPath: jpeg, photo: photo, deck: content.deck)
        return try DisplayBenchmark(artist: artist, deck: content.deck, resources: content.resources).run(app: app)
    }

    @MainActor
    private func runScrolling(options: CollectionOptions, content: Content, into report: inout BenchReport) throws {
        let modes: [Mode] = mode == .both ? [.async, .sync] : [mode]
        let size = options.size ?? Session.defaultSize
        var runs: [BenchRun] = []
        for mode in modes {
            for speed in speed {
                runs.append(try measure(mode: mode, speed: speed, options: options, content: content, report: &report))
            }
        }
        report.runs = runs
        let comparison = BenchReport.compare(runs)
        report.comparison = comparison.isEmpty ? nil : comparison
        print(
            "bench: scrolling \(content.summary) (pages of \(options.pageSize)), \(size) pt, \(duration) s per run, \(report.environment.renderer ?? "?") renderer (\(report.environment.videoDriver ?? "?")), \(String(format: "%g", rendering.scale))x, paced at \(String(format: "%g", rendering.refresh)) Hz, a new window per run"
        )
        print(report.table)
        if !report.comparisonText.isEmpty { print(report.comparisonText) }
    }

    /// One run in a window of its own: the first screen (from the window's creation to the
    /// first frame with every visible card on screen whole), then `duration` seconds of scrolling
    /// at constant speed, down to the end of the cards loaded so far and back up, bouncing.
    @MainActor
    private func measure(
        mode: Mode, speed: Double, options: CollectionOptions, content: Content,
        report: inout BenchReport
    ) throws -> BenchRun {
        ProcessMemory.resetPeak()
        let rastersBefore = DisplayScheduler.shared.rasterStatistics
        let start = MonotonicClock.now()
        let session = try Session(collection: options, headless: true, rendering: rendering, content: content)
        defer { session.app.close() }
        let app = session.app, viewer = session.viewer
        viewer.mode.mainThread = mode == .sync
        app.showsFPS = true
        app.statusLines = { [viewer.source.statusLine + " · bench"] }
        report.environment.renderer = app.rendererName
        report.environment.videoDriver = app.videoDriver
        report.environment.size = (options.size ?? Session.defaultSize).description
        report.environment.scale = Double(app.scale)
        report.environment.refreshHz = app.runLoop.pacing.refreshRate

        // The first screen.
        viewer.scriptedOffset = { _ in 0 }
        var firstScreen: Double?
        if settle(app, viewer, since: start) { firstScreen = (MonotonicClock.now() - start) * 1000 }
        for _ in 0..<Self.warmUpFrames {
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
            app.runTurn()
        }

        // The scroll: down at `speed`, bouncing between the top and the end of what is loaded
        // (batch fetching may move that end while it goes). With --settle-every, it stops after
        // every so many points travelled until the visible cards are displayed, and the run is
        // `speed` x `duration` points long rather than `duration` seconds, so that however slow
        // the frames, it stops as often; the stops' frames and time are left out of the figures.
        let collection = viewer.collection
        var position: CGFloat = 0, goingDown = true, last = MonotonicClock.now()
        let distance = settleEvery == nil ? CGFloat.infinity : CGFloat(speed * duration)
        var travelled: CGFloat = 0, nextStop = settleEvery.map { CGFloat($0) } ?? .infinity
        var stopping = false
        viewer.scriptedOffset = { time in
            var step = min(CGFloat(max(0, time - last) * speed), distance - travelled)
            last = time
            if stopping { return position }
            if travelled + step >= nextStop { step = nextStop - travelled; stopping = true }
            travelled += step
            let end = collection.maximumContentOffset
            position += goingDown ? step : -step
            if position >= end { position = end; goingDown = false }
            if position <= 0 { position = 0; goingDown = true }
            return position
        }
        let scrollStart = MonotonicClock.now()
        last = scrollStart
        var work: [Double] = []
        var intervals: [Double] = []
        // The scroll's own frames (not the warm-up's, nor those of the stops), counted by the same
        // rules as the loop's.
        var counted = FrameStatistics(budgetMs: app.runLoop.statistics.budgetMs, capacity: 1)
        var cardFrames = 0, placeholderFrames = 0
        var stopped: Double = 0, stops = 0
        func scrolling() -> Bool {
            settleEvery == nil ? MonotonicClock.now() - scrollStart - stopped < duration : travelled < distance
        }
        while scrolling() {
            app.runTurn()
            if stopping {
                let stopStart = MonotonicClock.now()
                guard settle(app, viewer, since: stopStart) else {
                    throw UserFacingError(
                        message:
                            "bench: the cards visible at \(String(format: "%.0f", position)) pt were not all displayed after \(timeout) s (--timeout)",
                        status: 1)
                }
                stops += 1
                stopped += MonotonicClock.now() - stopStart
                nextStop += CGFloat(settleEvery ?? .infinity)
                stopping = false
                last = MonotonicClock.now()
                app.runLoop.setNeedsFrame()
                app.runLoop.waitForNextFrame()
                continue
            }
            if let sample = app.runLoop.statistics.recent(1).first {
                work.append(sample.workMs)
                if let interval = sample.intervalMs { intervals.append(interval) }
                counted.record(start: sample.start, workMs: sample.workMs, intervalMs: sample.intervalMs)
            }
            let coverage = collection.visibleCoverage
            cardFrames += coverage.visible
            placeholderFrames += coverage.waiting
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
        }
        let elapsed = MonotonicClock.now() - scrollStart - stopped
        viewer.scriptedOffset = nil
        let rasters = DisplayScheduler.shared.rasterStatistics
        let completed = rasters.completed - rastersBefore.completed
        let cancelled = rasters.cancelled - rastersBefore.cancelled
        if let settleEvery {
            print(
                "bench: \(mode.rawValue) "
                    + String(
                        format:
                            "at %g pt/s travelled %.0f pt in %.1f s, stopped %d times (every %g pt) until the visible cards were displayed, %.1f s in all; %d displays completed, %d cancelled",
                        speed, travelled, elapsed, stops, settleEvery, stopped, completed, cancelled))
        }
        if mode == .async, let minDisplays, completed < minDisplays {
            throw UserFacingError(
                message: String(
                    format: "bench: the async run at %g pt/s completed %d displays, fewer than --min-displays %d",
                    speed, completed, minDisplays), status: 1)
        }
        return BenchRun(
            mode: mode.rawValue, speed: speed, cards: viewer.source.totalCount ?? viewer.itemCount, durationS: elapsed,
            frames: work.count, droppedFrames: counted.totalLate, lateRunMax: counted.longestLateRun,
            fps: Double(work.count) / elapsed,
            mainMs: BenchRun.summarise(work), mainOverruns: counted.totalOverruns, intervalMs: BenchRun.summarise(intervals),
            rssMbPeak: ProcessMemory.peakResidentMB(),
            placeholderExposure: cardFrames == 0 ? 0 : Double(placeholderFrames) / Double(cardFrames),
            rasters: .init(completed: completed, cancelled: cancelled),
            textureMbPeak: Double(app.compositor.textureBytesPeak) / 1_048_576,
            firstScreenMs: firstScreen, loadedCards: viewer.itemCount)
    }

    /// Turns `app` until every visible card is on screen whole, or until `--timeout` seconds
    /// after `start` have passed; whether the cards came.
    @MainActor
    private func settle(_ app: Application, _ viewer: Viewer, since start: TimeInterval) -> Bool {
        while MonotonicClock.now() - start < timeout {
            app.runTurn()
            if viewer.isDisplayComplete { return true }
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
        }
        return false
    }
}
