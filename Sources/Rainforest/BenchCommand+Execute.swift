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
        if options.cards == nil { options.cards = 1000 }
        let content = try Content.load(options)
        var report = BenchReport(environment: .init(cores: ProcessInfo.processInfo.activeProcessorCount))
        if scenario.contains(.scrolling) {
            try runScrolling(options: options, content: content, into: &report)
        }
        if scenario.contains(.graphics) || scenario.contains(.layout) {
            do {
                try GraphicsLibrary.initialize()    // the card nodes' texts are measured with SDL_ttf
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
            app = try Application(options: .init(title: "Rainforest bench", size: Session.defaultSize.cgSize, headless: true))
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
        let session = try Session(collection: options, headless: true, content: content)
        defer { session.app.close() }
        let app = session.app, viewer = session.viewer
        app.showsFPS = true
        app.statusLines = { ["\(viewer.itemCount.formatted()) cards · bench"] }

        var modes: [Mode] = mode == .both ? [.async, .sync] : [mode]
        if modes.contains(.sync) {
            modes.removeAll { $0 == .sync }
            let rest = modes.isEmpty ? "nothing else to run" : "running async only"
            FileHandle.standardError.write(Data("rainforest: bench: the main-thread (sync) mode is not built yet (it comes with the main-thread comparison mode); \(rest)\n".utf8))
            if modes.isEmpty { return }
        }
        let size = options.size ?? Session.defaultSize
        print("bench: scrolling \(viewer.itemCount) cards, \(size) pt, \(duration) s per run, \(app.rendererName) renderer (\(app.videoDriver)), paced at 60 Hz")
        report.environment.renderer = app.rendererName
        report.environment.videoDriver = app.videoDriver
        report.environment.size = size.description

        var runs: [BenchRun] = []
        for mode in modes {
            for speed in speed {
                runs.append(measure(mode: mode, speed: speed, app: app, viewer: viewer))
            }
        }
        report.runs = runs
        print(report.table)
    }

    /// One run: scroll at constant speed, bouncing at the ends, for `duration` seconds.
    @MainActor
    private func measure(mode: Mode, speed: Double, app: Application, viewer: Viewer) -> BenchRun {
        viewer.scriptedOffset = { _ in 0 }
        for _ in 0..<Self.warmUpFrames {
            app.runTurn()
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
        }
        ProcessMemory.resetPeak()
        let start = MonotonicClock.now()
        let maxOffset = Double(viewer.scroll.physics.maxOffset)
        viewer.scriptedOffset = { time in
            guard maxOffset > 0 else { return 0 }
            let travelled = (time - start) * speed
            let phase = travelled.truncatingRemainder(dividingBy: 2 * maxOffset)
            return CGFloat(phase <= maxOffset ? phase : 2 * maxOffset - phase)
        }
        var work: [Double] = []
        var intervals: [Double] = []
        var dropped = 0
        while MonotonicClock.now() - start < duration {
            app.runTurn()
            if let sample = app.runLoop.statistics.recent(1).first {
                work.append(sample.workMs)
                if let interval = sample.intervalMs { intervals.append(interval) }
                if sample.dropped { dropped += 1 }
            }
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
        }
        let elapsed = MonotonicClock.now() - start
        viewer.scriptedOffset = nil
        return BenchRun(mode: mode.rawValue, speed: speed, cards: viewer.itemCount, durationS: elapsed,
                        frames: work.count, droppedFrames: dropped, fps: Double(work.count) / elapsed,
                        mainMs: BenchRun.summarise(work), intervalMs: BenchRun.summarise(intervals),
                        rssMbPeak: ProcessMemory.peakResidentMB())
    }
}
