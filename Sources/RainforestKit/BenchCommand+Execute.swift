import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

extension BenchCommand {
    /// Frames drawn at the top before measuring, so start-up (the renderer's first use) does
    /// not count as scrolling.
    static let warmUpFrames = 30

    /// `--make-camera-folder` and `--make-animation-folder`: `make` fills the folder at `path`
    /// from the bundled photos, saying what it makes and what it kept.
    private func makeFolder(
        _ path: String, of what: String, _ make: (URL, Resources) throws(UserFacingError) -> Int
    ) throws {
        let resources: Resources
        do {
            resources = try Resources.locate(override: collection.resources)
        } catch {
            throw UserFacingError(message: error.message)
        }
        let url = URL(fileURLWithPath: path)
        print("bench: making \(photos) \(what) in \(url.path)")
        let made = try make(url, resources)
        print("bench: made \(made), kept \(photos - made)")
    }

    @MainActor
    func execute() throws {
        if let folder = makeAnimationFolder {
            try makeFolder(folder, of: "animations (\(AnimationFolder.width) x \(AnimationFolder.height))") {
                (url, resources) throws(UserFacingError) in try AnimationFolder.make(in: url, count: photos, resources: resources)
            }
            return
        }
        if let folder = makeCameraFolder {
            try makeFolder(folder, of: "camera photos (\(CameraFolder.width) x \(CameraFolder.height) JPEGs)") {
                (url, resources) throws(UserFacingError) in try CameraFolder.make(in: url, count: photos, resources: resources)
            }
            return
        }
        var options = collection
        if options.cards == nil && options.images == nil { options.cards = 1000 }
        let content = try Content.load(options)
        if workload == Self.firstScreenWorkload {
            try StartupBenchmark.runChild(
                options: options, content: content, contentLoaded: MonotonicClock.now(), rendering: rendering,
                timeout: timeout)
            return
        }
        if let workload = workload.flatMap(InstructionBenchmark.Workload.init(rawValue:)) {
            try InstructionBenchmark.runWorkload(workload, content: content, options: options)
            return
        }
        var report = BenchReport(environment: .init(cores: ProcessInfo.processInfo.activeProcessorCount))
        if scenario.contains(.camera) {
            try runCamera(options: options, content: content, into: &report)
        }
        if scenario.contains(.animation) {
            try runAnimation(options: options, content: content, into: &report)
        }
        if scenario.contains(.startup) {
            print(
                "bench: the first screen, from launch to every visible card on screen whole, in ms: cold (a new process, \(StartupBenchmark.runs) in a row) and warm (a second window in the same process)"
            )
            let phases = try StartupBenchmark.run(arguments: childArguments(options))
            report.startup = phases
            print(StartupBenchmark.table(phases))
        }
        if scenario.contains(.scrolling) || scenario.contains(.compositor) {
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
        if scenario.contains(.instructions) {
            print("bench: instructions of fixed workloads, counted by valgrind's callgrind (each in a process of its own)")
            let counts = try InstructionBenchmark.run(content: content, options: options)
            report.instructions = counts
            print(InstructionBenchmark.table(counts))
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
        let artist = try GraphicsBenchmark.sampleArtist(resources: content.resources, deck: content.deck)
        return try DisplayBenchmark(artist: artist, deck: content.deck, resources: content.resources).run(app: app)
    }

    /// The options a child run of the bench is given to open the same viewer.
    func childArguments(_ options: CollectionOptions) -> [String] {
        var arguments = ["--page-size", "\(options.pageSize)", "--timeout", "\(timeout)"]
        arguments += ["--scale", "\(rendering.scale)", "--refresh", "\(rendering.refresh)"]
        if let cards = options.cards { arguments += ["--cards", "\(cards)"] }
        if let images = options.images { arguments += ["--images", images] }
        if let size = options.size { arguments += ["--size", size.description] }
        if let resources = options.resources { arguments += ["--resources", resources] }
        arguments += ["--max-megapixels", "\(options.maxMegapixels)"]
        return arguments
    }

    /// The scrolling runs and the compositor's floor. The floor's scene is taken once, for the
    /// longest scroll; then, speed by speed, the floor and each mode run in turn, each in a new
    /// window, so that they meet the machine in the same minute.
    @MainActor
    private func runScrolling(options: CollectionOptions, content: Content, into report: inout BenchReport) throws {
        let scrolls = scenario.contains(.scrolling)
        let modes: [Mode] = !scrolls ? [] : mode == .both ? [.async, .sync] : [mode]
        let size = options.size ?? Session.defaultSize
        // The scene covers the longest scroll, paced, or unpaced (`FloorRun.unpacedFrames` frames).
        let unpaced = scenario.contains(.compositor)
        let seconds = unpaced ? max(duration, Double(FloorRun.unpacedFrames) / rendering.refresh) : duration
        let distance = CGFloat((speed.max() ?? 0) * seconds)
        let scene = try FloorScene.capture(
            collection: options, content: content, rendering: rendering, distance: distance, timeout: timeout)
        let bare = unpaced ? BareSDLFloor.executable : nil
        if unpaced && bare == nil {
            print(
                "bench: \(BareSDLFloor.executableName) is not built beside this program (swift build -c release --product \(BareSDLFloor.executableName)): the floor is not compared with bare SDL"
            )
        }
        var runs: [BenchRun] = [], floors: [FloorRun] = []
        for speed in speed {
            floors.append(
                try measureFloor(
                    scene: scene, speed: speed, distance: CGFloat(speed * seconds), unpaced: unpaced, bare: bare,
                    environment: &report.environment))
            for mode in modes {
                runs.append(try measure(mode: mode, speed: speed, options: options, content: content, report: &report))
            }
        }
        report.floor = floors
        report.runs = scrolls ? runs : nil
        let comparison = BenchReport.compare(runs)
        report.comparison = comparison.isEmpty ? nil : comparison
        print(
            "bench: \(scrolls ? "scrolling" : "the compositor's floor of scrolling") \(content.summary) (pages of \(options.pageSize)), \(size) pt, \(duration) s per run, \(report.environment.renderer ?? "?") renderer (\(report.environment.videoDriver ?? "?")), \(String(format: "%g", rendering.scale))x, paced at \(String(format: "%g", rendering.refresh)) Hz, a new window per run"
        )
        print(report.table)
        for text in [report.floorText, report.comparisonText] where !text.isEmpty { print(text) }
    }

    /// The compositor's floor at `speed`: the scene scrolled under the scrolling runs' pacing, and
    /// with `unpaced`, its cost per frame drawn as fast as the renderer goes, beside the bare SDL
    /// program's on the same scene. `distance`: how far the runs scroll (drawn once before, so
    /// every texture is uploaded).
    @MainActor
    private func measureFloor(
        scene: FloorScene, speed: Double, distance: CGFloat, unpaced: Bool, bare: URL?,
        environment: inout BenchReport.Environment
    ) throws -> FloorRun {
        let floor = try CompositorFloor(scene: scene, rendering: rendering)
        defer { floor.close() }
        environment.renderer = floor.app.rendererName
        environment.videoDriver = floor.app.videoDriver
        environment.size = (collection.size ?? Session.defaultSize).description
        environment.scale = Double(floor.app.scale)
        environment.refreshHz = floor.app.runLoop.pacing.refreshRate
        floor.warmUp(distance: distance)
        let paced = floor.runPaced(speed: speed, duration: duration)
        var run = FloorRun(speed: speed, tally: paced.tally, seconds: paced.seconds)
        if unpaced {
            let frames = FloorRun.unpacedFrames
            run.costMs = floor.runUnpaced(speed: speed, refresh: rendering.refresh, frames: frames)
            if let bare {
                let result = try BareSDLFloor.run(
                    bare, script: scene.bareScript(speed: speed, refresh: rendering.refresh, frames: frames))
                run.bareMs = result.msPerFrame
                run.bareRenderer = result.renderer
            }
        }
        return run
    }

    /// One run in a window of its own: the first screen (from the window's creation to the
    /// first frame with every visible card on screen whole), then `duration` seconds of scrolling
    /// at constant speed, down to the end of the cards loaded so far and back up, bouncing.
    @MainActor
    func measure(
        mode: Mode, speed: Double, options: CollectionOptions, content: Content,
        report: inout BenchReport
    ) throws -> BenchRun {
        ProcessMemory.resetPeak()
        let rastersBefore = DisplayScheduler.shared.rasterStatistics
        let start = MonotonicClock.now()
        let session = try Session(
            collection: options, headless: true, rendering: rendering, content: content, decodesAhead: mode != .sync)
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
        if session.settle(timeout: timeout - (MonotonicClock.now() - start)) {
            firstScreen = (MonotonicClock.now() - start) * 1000
        }
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
        var scroll = BouncingScroll(), position: CGFloat = 0, last = MonotonicClock.now()
        let distance = settleEvery == nil ? CGFloat.infinity : CGFloat(speed * duration)
        var travelled: CGFloat = 0, nextStop = settleEvery.map { CGFloat($0) } ?? .infinity
        var stopping = false
        viewer.scriptedOffset = { time in
            var step = min(CGFloat(max(0, time - last) * speed), distance - travelled)
            last = time
            if stopping { return position }
            if travelled + step >= nextStop { step = nextStop - travelled; stopping = true }
            travelled += step
            position = scroll.advance(step, end: collection.maximumContentOffset)
            return position
        }
        let scrollStart = MonotonicClock.now()
        last = scrollStart
        // The scroll's own frames (not the warm-up's, nor those of the stops).
        var tally = FrameTally(budgetMs: app.runLoop.statistics.budgetMs)
        var cardFrames = 0, placeholderFrames = 0
        var stopped: Double = 0, stops = 0
        func scrolling() -> Bool {
            settleEvery == nil ? MonotonicClock.now() - scrollStart - stopped < duration : travelled < distance
        }
        while scrolling() {
            app.runTurn()
            if stopping {
                let stopStart = MonotonicClock.now()
                guard session.settle(timeout: timeout) else {
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
            tally.recordLastFrame(of: app)
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
            frames: tally.work.count, droppedFrames: tally.counted.totalLate, lateRunMax: tally.counted.longestLateRun,
            fps: Double(tally.work.count) / elapsed, mainMs: BenchRun.summarise(tally.work),
            mainOverruns: tally.counted.totalOverruns, presentMs: BenchRun.summarise(tally.presents),
            intervalMs: BenchRun.summarise(tally.intervals),
            rssMbPeak: ProcessMemory.peakResidentMB(),
            placeholderExposure: cardFrames == 0 ? 0 : Double(placeholderFrames) / Double(cardFrames),
            rasters: .init(completed: completed, cancelled: cancelled),
            textureMbPeak: Double(app.compositor.textureBytesPeak) / 1_048_576,
            firstScreenMs: firstScreen, loadedCards: viewer.itemCount)
    }
}
