import Canopy
import CanopyGraphics
import Foundation

/// `bench --scenario camera`: a folder of camera photos on first launch (no thumbnails yet) and
/// on the second (the thumbnails the first wrote), beside the bundled cards, in one run.
struct CameraFigures: Codable, Sendable, Equatable {
    /// The first screen (ms, a new process each), round by round: bundled cards, the folder on
    /// first launch, the folder on second launch.
    var bundledFirstScreenMs: [Double]
    var firstLaunchFirstScreenMs: [Double]
    var secondLaunchFirstScreenMs: [Double]
    /// The folder on first launch to every visible photo from its file (the first screen shows
    /// the files' embedded thumbnails first).
    var firstLaunchPhotosMs: [Double] = []
    /// Scrolling the folder, first launch then second, at each speed.
    var scrolls: [Scroll]

    struct Scroll: Codable, Sendable, Equatable {
        var speed: Double
        var launch: String
        var placeholderExposure: Double
        var lateFrames: Int
        var frames: Int

        enum CodingKeys: String, CodingKey {
            case speed, launch, frames
            case placeholderExposure = "placeholder_exposure"
            case lateFrames = "late_frames"
        }
    }

    enum CodingKeys: String, CodingKey {
        case bundledFirstScreenMs = "bundled_first_screen_ms"
        case firstLaunchFirstScreenMs = "first_launch_first_screen_ms"
        case secondLaunchFirstScreenMs = "second_launch_first_screen_ms"
        case firstLaunchPhotosMs = "first_launch_photos_ms"
        case scrolls
    }
}

extension BenchCommand {
    @MainActor
    func runCamera(options: CollectionOptions, content: Content, into report: inout BenchReport) throws {
        guard let images = options.images else { return }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rainforest-bench-camera-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // The thumbnails alone start empty on a first launch: fontconfig and Mesa keep their
        // caches under XDG_CACHE_HOME too, and emptying those would time them as well.
        let thumbnailsRoot = scratch.appendingPathComponent("thumbnails")
        func forgetThumbnails() throws {
            try? FileManager.default.removeItem(at: thumbnailsRoot)
            try FileManager.default.createDirectory(at: thumbnailsRoot, withIntermediateDirectories: true)
        }
        var bundledOptions = options
        bundledOptions.images = nil
        bundledOptions.cards = 1000
        let cameraArguments = childArguments(options), bundledArguments = childArguments(bundledOptions)

        print(
            "bench: camera folder \(images): the first screen in ms, a new process each, \(StartupBenchmark.runs) rounds of bundled cards, the folder on first launch (no thumbnails) and on second launch"
        )
        var figures = CameraFigures(
            bundledFirstScreenMs: [], firstLaunchFirstScreenMs: [], secondLaunchFirstScreenMs: [], scrolls: [])
        for round in 1...StartupBenchmark.runs {
            figures.bundledFirstScreenMs.append(
                try StartupBenchmark.runOnce(arguments: bundledArguments, run: round).firstScreenMs)
            try forgetThumbnails()
            for launch in 1...2 {
                let phases = try StartupBenchmark.runOnce(
                    arguments: cameraArguments, run: round, environment: [Content.thumbnailsVariable: thumbnailsRoot.path])
                if launch == 1 {
                    figures.firstLaunchFirstScreenMs.append(phases.firstScreenMs)
                    figures.firstLaunchPhotosMs.append(phases.photosMs)
                } else {
                    figures.secondLaunchFirstScreenMs.append(phases.firstScreenMs)
                }
            }
        }
        func summary(_ values: [Double]) -> String {
            String(format: "%.0f (%.0f-%.0f)", values.median, values.min() ?? 0, values.max() ?? 0)
        }
        let bundled = figures.bundledFirstScreenMs.median
        print(
            BenchReport.format([
                ["", "first screen ms, median (range)", "/ bundled"],
                ["bundled cards", summary(figures.bundledFirstScreenMs), "1.00"],
                [
                    "folder, first launch", summary(figures.firstLaunchFirstScreenMs),
                    String(format: "%.2f", figures.firstLaunchFirstScreenMs.median / bundled),
                ],
                [
                    "folder, first launch, photos from the files", summary(figures.firstLaunchPhotosMs),
                    String(format: "%.2f", figures.firstLaunchPhotosMs.median / bundled),
                ],
                [
                    "folder, second launch", summary(figures.secondLaunchFirstScreenMs),
                    String(format: "%.2f", figures.secondLaunchFirstScreenMs.median / bundled),
                ],
            ]))

        // Scrolling the folder, in this process: every decode starts from the files (memory
        // cache emptied), with no thumbnails, then with the ones that run wrote.
        let thumbnails = Thumbnails(root: thumbnailsRoot, software: "rainforest")
        var rows = [["speed pt/s", "launch", "placeholder exposure", "late frames", "frames"]]
        for speed in speed {
            try forgetThumbnails()
            for launch in ["first", "second"] {
                ImageCache.shared.removeAll()
                ImageCache.shared.thumbnails = thumbnails
                let run = try measure(mode: .async, speed: speed, options: options, content: content, report: &report)
                Thumbnails.waitForWrites()
                figures.scrolls.append(
                    .init(
                        speed: speed, launch: launch, placeholderExposure: run.placeholderExposure,
                        lateFrames: run.droppedFrames, frames: run.frames))
                rows.append([
                    String(format: "%g", speed), launch, String(format: "%.1f%%", run.placeholderExposure * 100),
                    "\(run.droppedFrames)", "\(run.frames)",
                ])
            }
        }
        print("bench: scrolling the folder for \(duration) s at each speed, first launch (no thumbnails) then second")
        print(BenchReport.format(rows))
        report.camera = figures
    }
}
