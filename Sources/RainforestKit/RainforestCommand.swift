import ArgumentParser
import Foundation

/// `rainforest`: the card viewer and its headless tools.
struct RainforestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rainforest",
        abstract: "Scrolls a collection of rainforest animal cards, drawn off the main thread by Canopy.",
        subcommands: [RunCommand.self, ScreenshotCommand.self, BenchCommand.self, SoakCommand.self, IconCommand.self],
        defaultSubcommand: RunCommand.self
    )
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Open the viewer window (the default).")

    @OptionGroup var collection: CollectionOptions

    @Argument(
        help: ArgumentHelp(
            "Photos or folders to show (as a file manager passes them): photos as cards of their own, in the order given, or else the first folder's files.",
            valueName: "PATH"))
    var paths: [String] = []

    @Option(
        help: ArgumentHelp("Overlays shown at start, comma-separated: fps, hitslop, ranges, scaling.", valueName: "LIST"),
        transform: OverlayName.parseList)
    var overlays: [OverlayName]?

    @Option(
        help: ArgumentHelp(
            "How cards are made at start, comma-separated: async (default) or main-thread, plus popcorn, no-fade, slow-draw.",
            valueName: "LIST"), transform: ViewerMode.parse)
    var mode: ViewerMode = ViewerMode()

    func validate() throws {
        guard paths.isEmpty || ImageFolder.opening(paths) != nil else {
            throw ValidationError("nothing to show: no such file or folder: \(paths.joined(separator: ", "))")
        }
        if !paths.isEmpty, collection.images != nil || collection.cards != nil {
            throw ValidationError("photos or folders to show replace --images and --cards: give one or the other")
        }
    }
}

/// `rainforest icon`: the app's icon as a PNG (for `make install`).
struct IconCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "icon", abstract: "Write the app's icon, a leaf on a dark rounded square, as a PNG.",
        shouldDisplay: false)

    @Option(help: ArgumentHelp("The PNG to write.", valueName: "FILE"))
    var output: String

    @Option(help: ArgumentHelp("Its side in pixels.", valueName: "PX"))
    var size: Int = 256

    func validate() throws {
        guard (16...1024).contains(size) else { throw ValidationError("--size must be from 16 to 1024 pixels") }
        try checkWritable(output, option: "--output")
    }
}

struct ScreenshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenshot",
        abstract: "Render the window's content headless and write a PNG.")

    @Option(help: ArgumentHelp("The PNG to write.", valueName: "FILE"))
    var output: String

    @OptionGroup var collection: CollectionOptions

    @OptionGroup var rendering: HeadlessOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Scroll down this many points first.", valueName: "PT"))
    var scroll: Double = 0

    @Option(
        help: ArgumentHelp("Overlays to draw, comma-separated: fps, hitslop, ranges, scaling.", valueName: "LIST"),
        transform: OverlayName.parseList)
    var overlays: [OverlayName] = []

    @Option(
        help: ArgumentHelp(
            "How cards are made, comma-separated: async (default) or main-thread, plus popcorn, no-fade, slow-draw.",
            valueName: "LIST"), transform: ViewerMode.parse)
    var mode: ViewerMode = ViewerMode()

    @Option(help: ArgumentHelp("Seconds to wait for the visible cards to display.", valueName: "S"))
    var timeout: Double = 60

    func validate() throws {
        guard scroll.isFinite, scroll >= 0 else { throw ValidationError("--scroll must be zero or more points") }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than zero seconds") }
        try checkWritable(output, option: "--output")
    }
}

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Scroll headless at constant speed and report frame statistics.")

    enum Mode: String, ExpressibleByArgument, CaseIterable, Sendable {
        case async, sync, both
    }

    /// What to measure: the scripted scroll (beside the compositor's floor), the compositor's
    /// floor alone with its cost per frame against bare SDL's, the drawing steps of a card on one
    /// core, the card's layout on one core, the main thread's cost of landing a card and the
    /// display workers.
    enum Scenario: String, CaseIterable, Sendable {
        case scrolling, compositor, startup, graphics, layout, display, instructions, camera, animation

        static func parseList(_ text: String) throws -> [Scenario] {
            let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let all =
                names.contains("all")
                ? Scenario.allCases.filter { $0 != .camera && $0 != .animation }  // they need folders of their own
                : try names.map { name in
                    guard let scenario = Scenario(rawValue: name) else {
                        throw ValidationError(
                            "unknown scenario '\(name)'; choose from \(allCases.map(\.rawValue).joined(separator: ", ")), all")
                    }
                    return scenario
                }
            guard !all.isEmpty else { throw ValidationError("name at least one scenario") }
            return all
        }
    }

    @Option(
        help: ArgumentHelp(
            "What to measure, comma-separated: scrolling, compositor, startup, graphics, layout, display, instructions (under valgrind), or all; camera (with --images: a folder of camera photos, first launch and second beside the bundled cards); animation (with --images: a folder of animations held still, playing and paused).",
            valueName: "LIST"),
        transform: Scenario.parseList)
    var scenario: [Scenario] = [.scrolling]

    @Option(help: "async (Canopy), sync (the main-thread mode) or both.")
    var mode: Mode = .async

    @OptionGroup var collection: CollectionOptions

    @OptionGroup var rendering: HeadlessOptions

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Scroll speed in points per second; a comma-separated list runs each.", valueName: "PT_PER_S"),
        transform: BenchCommand.parseSpeeds)
    var speed: [Double] = [3000]

    @Option(help: ArgumentHelp("Seconds each run scrolls.", valueName: "S"))
    var duration: Double = 10

    @Option(help: ArgumentHelp("Write the figures as JSON to FILE.", valueName: "FILE"))
    var json: String?

    /// One workload of the instructions scenario (what that scenario runs under valgrind), or
    /// `first-screen` (what the startup scenario runs), run in this process.
    @Option(help: ArgumentHelp(visibility: .hidden))
    var workload: String?

    @Option(
        help: ArgumentHelp(
            "Stop after every PT points of scrolling until every visible card is displayed whole; the run then scrolls speed x duration points, the stops left out of its time, so a slow machine or build stops as often and lands as many cards.",
            valueName: "PT"))
    var settleEvery: Double?

    @Option(
        help: ArgumentHelp(
            "Make a folder of camera photos (4032 x 3024 JPEGs, 12 MP, from the bundled photos with grain) at DIR for --scenario camera, and stop; photos already there are kept.",
            valueName: "DIR"))
    var makeCameraFolder: String?

    @Option(
        help: ArgumentHelp(
            "Make a folder of animations (480 x 320, 12 frames of a pan across a bundled photo, GIF and WebP in turn) at DIR for --scenario animation, and stop; files already there are kept.",
            valueName: "DIR"))
    var makeAnimationFolder: String?

    @Option(help: ArgumentHelp("How many files --make-camera-folder or --make-animation-folder makes.", valueName: "N"))
    var photos: Int = 500

    @Option(help: ArgumentHelp("Fail (status 1) when an async run completes fewer than N displays.", valueName: "N"))
    var minDisplays: Int?

    @Option(
        help: ArgumentHelp(
            "Seconds to wait for the first screen (after that the run goes on without it: first_screen_ms is empty) and for the cards at each --settle-every stop (after that the bench fails with status 1).",
            valueName: "S"))
    var timeout: Double = 60

    func validate() throws {
        guard duration > 0, duration <= 3600 else { throw ValidationError("--duration must be from 0 to 3600 seconds") }
        if let settleEvery {
            guard settleEvery.isFinite, settleEvery > 0 else {
                throw ValidationError("--settle-every must be more than zero points")
            }
        }
        if let minDisplays { guard minDisplays >= 0 else { throw ValidationError("--min-displays must be zero or more") } }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than zero seconds") }
        if let json { try checkWritable(json, option: "--json") }
        guard (1...100_000).contains(photos) else { throw ValidationError("--photos must be from 1 to 100000") }
        if scenario.contains(.camera), collection.images == nil {
            throw ValidationError(
                "--scenario camera measures a folder: give it with --images DIR (bench --make-camera-folder DIR makes one)")
        }
        if scenario.contains(.animation), collection.images == nil {
            throw ValidationError(
                "--scenario animation measures a folder: give it with --images DIR (bench --make-animation-folder DIR makes one)"
            )
        }
        if let workload, workload != Self.firstScreenWorkload, InstructionBenchmark.Workload(rawValue: workload) == nil {
            let names = InstructionBenchmark.Workload.allCases.map(\.rawValue) + [Self.firstScreenWorkload]
            throw ValidationError("unknown workload '\(workload)'; choose from \(names.joined(separator: ", "))")
        }
    }

    static let firstScreenWorkload = "first-screen"

    static func parseSpeeds(_ text: String) throws -> [Double] {
        let values = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0 != nil && $0! > 0 && $0!.isFinite }) else {
            throw ValidationError("expected a positive number of points per second, or a comma-separated list of them")
        }
        return values.map { $0! }
    }
}
