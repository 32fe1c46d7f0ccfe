import Canopy
import CanopyGraphics
import CanopySDL
import Foundation
import Synchronization

/// `bench --make-animation-folder DIR`: animated GIFs and WebPs made from the bundled photos, a
/// slow pan across each, for `bench --scenario animation`.
enum AnimationFolder {
    static let width = 480
    static let height = 320
    static let frames = 12
    static let frameDuration: TimeInterval = 0.08

    /// The files' names: animation-0001.gif, animation-0002.webp... (GIF and WebP in turn).
    static func name(_ index: Int) -> String {
        String(format: "animation-%04d.%@", index + 1, index % 2 == 0 ? "gif" : "webp")
    }

    /// Makes the animations from 1 to `count` that `folder` (made if missing) does not hold yet;
    /// returns how many it made (`BenchFolder.fill`).
    static func make(in folder: URL, count: Int, resources: Resources) throws(UserFacingError) -> Int {
        // Half as large again as a frame: the pan has room to move.
        try BenchFolder.fill(
            folder, count: count, resources: resources, sourceFitting: CGSize(width: width * 3 / 2, height: height * 3 / 2),
            name: name, isMade: { (try? ImageHeader.read(contentsOf: $0))?.isAnimated == true }
        ) { index, source, path in
            let frames = pan(across: source)
            do throws(BitmapWriteError) {
                try AnimationWriter.write(
                    frames, durations: Array(repeating: frameDuration, count: frames.count), loops: 0,
                    format: index % 2 == 0 ? .gif : .webp(quality: 75), to: path)
                return nil
            } catch {
                return error.reason
            }
        }
    }

    /// `frames` windows of `width` x `height` moving from the photo's top left to its bottom
    /// right (the photo scaled up first if it is smaller than a window).
    private static func pan(across photo: Bitmap) -> [Bitmap] {
        let source =
            photo.width >= width && photo.height >= height
            ? photo
            : Resampler.resize(photo, toPixelWidth: max(width, photo.width), pixelHeight: max(height, photo.height))
        return (0..<frames).map { frame in
            let t = Double(frame) / Double(frames - 1)
            let x = Int(Double(source.width - width) * t), y = Int(Double(source.height - height) * t)
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            source.pixels.withUnsafeBufferPointer { from in
                pixels.withUnsafeMutableBufferPointer { to in
                    for row in 0..<height {
                        let start = (y + row) * source.bytesPerRow + x * 4
                        (to.baseAddress! + row * width * 4).update(from: from.baseAddress! + start, count: width * 4)
                    }
                }
            }
            return Bitmap(width: width, height: height, isOpaque: source.isOpaque, pixels: pixels)
        }
    }
}

/// `bench --scenario animation`: the main thread's cost of playing the animated cards of a
/// folder, held still on its first screen, playing against paused (the same frames composited),
/// three runs each in turn.
struct AnimationFigures: Codable, Sendable, Equatable {
    struct Run: Codable, Sendable, Equatable {
        var paused: Bool
        /// Animations playing in the window.
        var playing: Int
        var frames: Int
        var lateFrames: Int
        /// The main thread's work per presented frame, mean, in ms.
        var mainMsPerFrame: Double
        /// Animation frames set on layers.
        var animationFrames: Int
        /// The main thread's animation work (taking frames, setting contents) and the texture
        /// updates of those frames, per animation frame, in µs.
        var tickUsPerAnimationFrame: Double
        var uploadUsPerAnimationFrame: Double

        enum CodingKeys: String, CodingKey {
            case paused, playing, frames
            case lateFrames = "late_frames"
            case mainMsPerFrame = "main_ms_per_frame"
            case animationFrames = "animation_frames"
            case tickUsPerAnimationFrame = "tick_us_per_animation_frame"
            case uploadUsPerAnimationFrame = "upload_us_per_animation_frame"
        }
    }

    var runs: [Run]
}

extension BenchCommand {
    @MainActor
    func runAnimation(options: CollectionOptions, content: Content, into report: inout BenchReport) throws {
        guard let images = options.images else { return }
        print(
            "bench: animation folder \(images): the first screen held still \(String(format: "%g", duration)) s, playing then paused, \(StartupBenchmark.runs) runs each; a frame every refresh either way"
        )
        var figures = AnimationFigures(runs: [])
        for _ in 1...StartupBenchmark.runs {
            for paused in [false, true] {
                figures.runs.append(try holdStill(paused: paused, options: options, content: content))
            }
        }
        func median(_ paused: Bool, _ value: (AnimationFigures.Run) -> Double) -> String {
            let values = figures.runs.filter { $0.paused == paused }.map(value)
            return String(format: "%.3f (%.3f-%.3f)", values.median, values.min() ?? 0, values.max() ?? 0)
        }
        var rows = [["", "main ms / frame, median (range)", "animation frames", "late frames", "playing"]]
        for paused in [false, true] {
            let runs = figures.runs.filter { $0.paused == paused }
            rows.append([
                paused ? "paused" : "playing", median(paused) { $0.mainMsPerFrame },
                runs.map { "\($0.animationFrames)" }.joined(separator: ", "),
                runs.map { "\($0.lateFrames)" }.joined(separator: ", "), "\(runs.first?.playing ?? 0)",
            ])
        }
        print(BenchReport.format(rows))
        let playing = figures.runs.filter { !$0.paused }
        let tick = playing.map(\.tickUsPerAnimationFrame).median
        let upload = playing.map(\.uploadUsPerAnimationFrame).median
        // What playing adds to each presented frame, spread over the cards that play.
        let added =
            (playing.map(\.mainMsPerFrame).median - figures.runs.filter(\.paused).map(\.mainMsPerFrame).median) * 1000
            / Double(max(1, playing.first?.playing ?? 1))
        print(
            String(
                format:
                    "bench: main thread per animation frame shown (medians): %.1f µs of animation work (its turns' checks included), %.1f µs for its new texture; playing adds %.1f µs to a presented frame per animated card",
                tick, upload, added))
        report.animation = figures
    }

    /// One run: a window of the folder, its first screen settled, then `duration` seconds of a
    /// frame every refresh with the animations playing or paused.
    @MainActor
    private func holdStill(paused: Bool, options: CollectionOptions, content: Content) throws -> AnimationFigures.Run {
        ImageCache.shared.removeAll()
        let session = try Session(collection: options, headless: true, rendering: rendering, content: content)
        defer { session.app.close() }
        let app = session.app
        app.showsFPS = false
        guard session.settle(timeout: timeout) else {
            throw UserFacingError(message: "bench: the folder's first screen did not land in \(timeout) s", status: 1)
        }
        guard let animations = DisplayScheduler.shared.imageAnimations else {
            throw UserFacingError(message: "bench: no animation player", status: 1)
        }
        animations.isPaused = paused
        for _ in 0..<Self.warmUpFrames {
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
            app.runTurn()
        }
        var uploadSeconds: TimeInterval = 0
        app.compositor.uploadObserver = { _, seconds in uploadSeconds += seconds }
        defer { app.compositor.uploadObserver = nil }
        let shownBefore = animations.framesShown, tickBefore = animations.tickSeconds
        let lateBefore = app.runLoop.statistics.totalLate
        var frames = 0, mainMs = 0.0
        let end = MonotonicClock.now() + duration
        while MonotonicClock.now() < end {
            app.runLoop.setNeedsFrame()
            app.runLoop.waitForNextFrame()
            app.runTurn()
            frames += 1
            mainMs += app.runLoop.statistics.recent(1).first?.workMs ?? 0
        }
        let shown = animations.framesShown - shownBefore
        return AnimationFigures.Run(
            paused: paused, playing: animations.playingCount, frames: frames,
            lateFrames: app.runLoop.statistics.totalLate - lateBefore, mainMsPerFrame: mainMs / Double(max(1, frames)),
            animationFrames: shown,
            tickUsPerAnimationFrame: shown > 0 ? (animations.tickSeconds - tickBefore) * 1e6 / Double(shown) : 0,
            uploadUsPerAnimationFrame: shown > 0 ? uploadSeconds * 1e6 / Double(shown) : 0)
    }
}
