import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// The scroll the benchmarks script: down at a constant speed, bouncing between the top and the
/// end of the content. The scrolling runs, the compositor's floor and the bare SDL program
/// (Sources/BareSDLFloor) move alike.
struct BouncingScroll {
    private(set) var position: CGFloat = 0
    private var goingDown = true

    /// Moves `step` points on, turning at 0 and at `end`; the new position.
    mutating func advance(_ step: CGFloat, end: CGFloat) -> CGFloat {
        position += goingDown ? step : -step
        if position >= end {
            position = max(0, end)
            goingDown = false
        }
        if position <= 0 {
            position = 0
            goingDown = true
        }
        return position
    }
}

/// The frames of a measured stretch, counted by the frame loop's rules (`FrameStatistics`).
struct FrameTally {
    private(set) var work: [Double] = []
    private(set) var presents: [Double] = []
    private(set) var intervals: [Double] = []
    private(set) var counted: FrameStatistics

    init(budgetMs: Double) {
        counted = FrameStatistics(budgetMs: budgetMs, capacity: 1)
    }

    mutating func record(_ sample: FrameSample) {
        work.append(sample.workMs)
        presents.append(sample.presentMs)
        if let interval = sample.intervalMs { intervals.append(interval) }
        counted.record(
            start: sample.start, workMs: sample.workMs, presentMs: sample.presentMs, intervalMs: sample.intervalMs)
    }

    /// Records the frame `app` just ran.
    @MainActor
    mutating func recordLastFrame(of app: Application) {
        if let sample = app.runLoop.statistics.recent(1).first { record(sample) }
    }

    /// Each frame's main-thread work and present together: what the frame cost the main thread,
    /// waiting for the renderer included.
    var frameMs: [Double] { zip(work, presents).map { $0 + $1 } }
}

/// What a scroll draws, kept so it can be drawn again with nothing else running: the cards'
/// textures, their places along the scroll and their layers' looks, with the window they were
/// drawn in. The compositor's floor draws it through Canopy's compositor (`CompositorFloor`);
/// the bare SDL program draws its rects (`bareScript`).
struct FloorScene {
    struct Card {
        /// Where the card is, in the collection's content coordinates (points).
        var frame: CGRect
        var bitmap: Bitmap
        /// Every pixel's alpha is 255 (the bare program then draws it without blending).
        var isOpaque: Bool
        var backgroundColor: Color?
        var borderColor: Color?
        var borderWidth: CGFloat
        var cornerRadius: CGFloat
    }

    /// The collection's frame in the window (points), which clips the cards.
    var viewport: CGRect
    /// The largest scroll offset when the scene was taken.
    var end: CGFloat
    /// The cards, in index order, covering offsets 0 to `covered`.
    var cards: [Card]
    var covered: CGFloat
    var windowSize: CGSize
    var scale: CGFloat

    /// The cards whose frames meet the viewport at `offset`.
    func visibleCards(at offset: CGFloat) -> [Int] {
        let top = offset, bottom = offset + viewport.height
        return cards.indices.filter { cards[$0].frame.maxY > top && cards[$0].frame.minY < bottom }
    }

    /// Takes the scene of a scroll of `distance` points: a window like the scrolling runs' (async
    /// mode), stepped a viewport at a time from the top and settled at each step until every
    /// visible card is on screen whole and still, keeping each card's frame and layer. Cards of the same pixel
    /// size share the first bitmap seen of that size (the deck repeats, and a texture's cost is
    /// its size and blending, not its picture), which keeps the scene's memory to the distinct
    /// sizes.
    @MainActor
    static func capture(
        collection options: CollectionOptions, content: Content, rendering: HeadlessOptions, distance: CGFloat,
        timeout: TimeInterval
    ) throws(UserFacingError) -> FloorScene {
        let session = try Session(collection: options, headless: true, rendering: rendering, content: content)
        defer { session.app.close() }
        let app = session.app, viewer = session.viewer, collection = viewer.collection
        app.showsFPS = false
        var offset: CGFloat = 0
        viewer.scriptedOffset = { _ in offset }
        var byIndex: [Int: Card] = [:]
        var bitmaps: [String: (bitmap: Bitmap, isOpaque: Bool)] = [:]
        while true {
            guard session.settle(timeout: timeout, until: \.isSettled) else {
                throw UserFacingError(
                    message: String(
                        format: "bench: the cards visible at %.0f pt were not all displayed after %g s (--timeout)",
                        offset, timeout), status: 1)
            }
            for index in collection.visibleItemIndices where byIndex[index] == nil {
                guard let layer = collection.nodeForItem(at: index)?.layerIfLoaded, let bitmap = layer.contents
                else { continue }
                let origin = layer.superlayer?.convertToWindow(.zero) ?? .zero
                let windowFrame = layer.frame.offsetBy(dx: origin.x, dy: origin.y)
                let key = "\(bitmap.width)x\(bitmap.height)"
                let shared = bitmaps[key] ?? (bitmap, bitmap.pixelsAreOpaque)
                bitmaps[key] = shared
                byIndex[index] = Card(
                    frame: windowFrame.offsetBy(dx: -collection.frame.minX, dy: offset - collection.frame.minY),
                    bitmap: shared.bitmap, isOpaque: shared.isOpaque, backgroundColor: layer.backgroundColor,
                    borderColor: layer.borderColor, borderWidth: layer.borderWidth, cornerRadius: layer.cornerRadius)
            }
            let end = collection.maximumContentOffset
            if offset >= min(distance, end) {
                return FloorScene(
                    viewport: collection.frame, end: end, cards: byIndex.keys.sorted().map { byIndex[$0]! },
                    covered: offset, windowSize: app.size, scale: app.scale)
            }
            offset = min(offset + collection.frame.height, end)
        }
    }

    /// The scene's cards repeated down the content, each copy below the last (10 points apart),
    /// until they cover a scroll of `distance` points: a long scene from one screenful, for a
    /// workload that must not wait for a long scroll's displays.
    func repeated(toCover distance: CGFloat) -> FloorScene {
        guard let bottom = cards.map(\.frame.maxY).max(), bottom > 0 else { return self }
        let period = bottom + 10
        var scene = self
        var copy = 1
        while CGFloat(copy) * period < distance + viewport.height {
            scene.cards += cards.map { card in
                var card = card
                card.frame = card.frame.offsetBy(dx: 0, dy: CGFloat(copy) * period)
                return card
            }
            copy += 1
        }
        scene.covered = distance
        scene.end = max(0, CGFloat(copy) * period - viewport.height)
        return scene
    }

    /// The scene as the bare SDL program reads it, in pixels: one directive a line.
    func bareScript(speed: Double, refresh: Double, frames: Int) -> String {
        func px(_ v: CGFloat) -> Int { Int((v * scale).rounded()) }
        var lines = [
            "window \(px(windowSize.width)) \(px(windowSize.height))",
            "viewport \(px(viewport.minX)) \(px(viewport.minY)) \(px(viewport.width)) \(px(viewport.height))",
            "end \(px(end))", "speed \(speed * Double(scale))", "refresh \(refresh)", "frames \(frames)",
        ]
        for card in cards {
            let f = card.frame
            let x0 = px(f.minX), y0 = px(f.minY)
            lines.append("card \(x0) \(y0) \(px(f.maxX) - x0) \(px(f.maxY) - y0) \(card.isOpaque ? 1 : 0)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The compositor's floor: a `FloorScene` drawn through Canopy's compositor in a window like the
/// scrolling runs', the cards' layers given the scene's bitmaps and looks, with nothing else
/// running: no display workers, no layout, no uploads while it is measured (every texture is
/// uploaded before), no overlays.
@MainActor
final class CompositorFloor {
    let scene: FloorScene
    let app: Application
    private let clip = Layer()
    /// Layers by bitmap, reused as cards come and go, so that no texture is uploaded twice.
    private var pool: [ObjectIdentifier: [Layer]] = [:]
    private var scroll = BouncingScroll()

    init(scene: FloorScene, rendering: HeadlessOptions) throws(UserFacingError) {
        self.scene = scene
        do {
            app = try Application(
                options: .init(
                    title: "Rainforest bench: compositor floor", size: scene.windowSize, overlayFont: Session.overlayFont,
                    headless: true, pixelScale: CGFloat(rendering.scale), refreshRate: rendering.refresh))
        } catch {
            throw UserFacingError(message: "bench: \(error.message)", status: 1)
        }
        app.showsFPS = false
        clip.frame = scene.viewport
        clip.clipsToBounds = true
        app.rootLayer.setSublayers([clip])
    }

    func close() { app.close() }

    /// Shows the cards visible at `offset`.
    func show(offset: CGFloat) {
        clip.boundsOrigin = CGPoint(x: 0, y: offset)
        var taken: [ObjectIdentifier: Int] = [:]
        var layers: [Layer] = []
        for index in scene.visibleCards(at: offset) {
            let card = scene.cards[index]
            let key = ObjectIdentifier(card.bitmap)
            let n = taken[key, default: 0]
            taken[key] = n + 1
            if pool[key, default: []].count <= n {
                let layer = Layer()
                layer.contents = card.bitmap
                pool[key, default: []].append(layer)
            }
            let layer = pool[key]![n]
            layer.frame = card.frame
            layer.backgroundColor = card.backgroundColor
            layer.borderColor = card.borderColor
            layer.borderWidth = card.borderWidth
            layer.cornerRadius = card.cornerRadius
            layers.append(layer)
        }
        clip.setSublayers(layers)
    }

    /// The next position of the scroll, `seconds` after the last.
    private func advance(_ seconds: TimeInterval, speed: Double) -> CGFloat {
        scroll.advance(CGFloat(seconds * speed), end: min(scene.end, scene.covered))
    }

    /// Draws the first `distance` points of the scroll once, unmeasured, until every texture they
    /// need is uploaded.
    func warmUp(distance: CGFloat) {
        var scroll = BouncingScroll()
        let step = scene.viewport.height / 2
        var travelled: CGFloat = 0
        repeat {
            show(offset: scroll.advance(step, end: min(scene.end, scene.covered)))
            travelled += step
            repeat {
                app.runLoop.setNeedsFrame()
                app.runTurn()
            } while app.compositor.pendingUploads > 0
        } while travelled < distance + step
    }

    struct Paced {
        var tally: FrameTally
        var seconds: TimeInterval
    }

    /// Scrolls at `speed` for `duration` seconds, paced like the scrolling runs.
    func runPaced(speed: Double, duration: TimeInterval) -> Paced {
        scroll = BouncingScroll()
        var tally = FrameTally(budgetMs: app.runLoop.statistics.budgetMs)
        var last = MonotonicClock.now()
        let start = last
        while MonotonicClock.now() - start < duration {
            let now = MonotonicClock.now()
            show(offset: advance(now - last, speed: speed))
            last = now
            app.runTurn()
            tally.recordLastFrame(of: app)
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
        }
        return Paced(tally: tally, seconds: MonotonicClock.now() - start)
    }

    /// Draws `frames` frames as fast as the renderer takes them, each `1 / refresh` seconds of the
    /// scroll after the one before, and waits until the renderer has drawn the last; the
    /// milliseconds per frame.
    func runUnpaced(speed: Double, refresh: Double, frames: Int) -> Double {
        scroll = BouncingScroll()
        app.finishRendering()
        let start = MonotonicClock.now()
        for _ in 0..<frames {
            show(offset: advance(1 / refresh, speed: speed))
            app.runLoop.setNeedsFrame()
            app.runTurn()
        }
        app.finishRendering()
        return (MonotonicClock.now() - start) * 1000 / Double(frames)
    }
}

/// The bare SDL program (Sources/BareSDLFloor): the floor's scene drawn with nothing but SDL
/// calls, its cost per frame.
enum BareSDLFloor {
    static let executableName = "bare-sdl-floor"

    /// The program beside this one (both are built into the same folder), if it was built.
    static var executable: URL? {
        guard let own = Bundle.main.executableURL else { return nil }
        let url = own.deletingLastPathComponent().appendingPathComponent(executableName)
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    struct Result {
        var msPerFrame: Double
        var renderer: String
    }

    /// Runs the program on `script`; the milliseconds per frame it reports.
    static func run(_ executable: URL, script: String) throws(UserFacingError) -> Result {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rainforest-floor-\(ProcessInfo.processInfo.processIdentifier).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try script.write(to: file, atomically: true, encoding: .utf8)
        } catch {
            throw UserFacingError(message: "bench: cannot write \(file.path): \(error.localizedDescription)", status: 1)
        }
        let outcome = try ChildProcess.run(executable, [file.path])
        // It prints "ms_per_frame 6.61 renderer opengl frames 300".
        let fields = outcome.output.split(whereSeparator: \.isWhitespace).map(String.init)
        guard outcome.status == 0, let i = fields.firstIndex(of: "ms_per_frame"), i + 1 < fields.count,
            let ms = Double(fields[i + 1])
        else {
            throw UserFacingError(
                message:
                    "bench: \(executable.lastPathComponent) failed (status \(outcome.status)): \(outcome.output)\(outcome.errorsTail)",
                status: 1)
        }
        let renderer = fields.firstIndex(of: "renderer").flatMap { $0 + 1 < fields.count ? fields[$0 + 1] : nil }
        return Result(msPerFrame: ms, renderer: renderer ?? "?")
    }
}
