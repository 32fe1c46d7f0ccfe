import Canopy
import CanopyGraphics
import CanopySDL
import Foundation

/// `bench --scenario instructions`: fixed workloads counted in instructions by valgrind's
/// callgrind, a figure that holds on a machine whose speed swings from minute to minute, so two
/// builds can be compared on a busy machine.
///
/// Each workload runs in a child: this program, copied and stripped of its debug information
/// (Debian's valgrind 3.19 cannot read the Swift toolchain's DWARF), run under callgrind as
/// `bench --workload NAME`. Only what runs inside `measured(_:)` is counted
/// (`--toggle-collect`), not the start-up or the preparation. Mesa's llvmpipe is asked to
/// rasterize on the drawing thread (`LP_NUM_THREADS=0`), so the renderer's work is counted too.
enum InstructionBenchmark {
    enum Workload: String, CaseIterable, Sendable {
        /// The card drawn whole (photo, blurred background, gradient, texts) at 1x and at 2x.
        case card1x = "card-1x"
        case card2x = "card-2x"
        /// 100 cards' layout-spec trees built and measured, nothing cached.
        case layout = "layout-100"
        /// 300 frames of a scroll at 3,000 pt/s over contents displayed before (the first screen's
        /// cards, repeated): the compositor's floor, drawn and rendered.
        case scroll = "scroll-300"

        var summary: String {
            switch self {
            case .card1x: "one card drawn at 1x"
            case .card2x: "one card drawn at 2x"
            case .layout: "100 cards' layout"
            case .scroll: "300 frames of a scroll at 3,000 pt/s, rendered (llvmpipe on the main thread)"
            }
        }
    }

    /// Counted: everything this calls, on this thread (callgrind's `--toggle-collect` names it).
    @inline(never)
    static func measured(_ body: () throws -> Void) rethrows {
        try body()
    }

    /// Runs one workload in this process (the child's side).
    @MainActor
    static func runWorkload(_ workload: Workload, content: Content, options: CollectionOptions) throws {
        switch workload {
        case .card1x, .card2x:
            try GraphicsLibrary.initialize()
            let artist = try GraphicsBenchmark.sampleArtist(resources: content.resources, deck: content.deck)
            let scale: CGFloat = workload == .card1x ? 1 : 2
            _ = try artist.draw(scale: scale)  // fonts opened, glyphs cached: a card as the viewer draws most
            try measured { _ = try artist.draw(scale: scale) }
        case .layout:
            let entries = content.deck.entries
            measured {
                for index in 0..<100 {
                    let entry = entries[index % entries.count]
                    let spec = CardLayout.spec(
                        photoSize: try? entry.imageSize.get(), nameLength: entry.card.name.count,
                        descriptionLength: entry.card.description.count + index % 7,
                        creditLength: entry.card.credit.count)
                    _ = spec.layoutThatFits(CardLayout.sizeRange)
                }
            }
        case .scroll:
            let rendering = try HeadlessOptions.parse([])  // 1x at 60 Hz
            let frames = FloorRun.unpacedFrames, speed = 3000.0
            let distance = CGFloat(speed * Double(frames) / rendering.refresh)
            // The first screen's cards, displayed by the viewer, repeated down the scroll.
            let scene = try FloorScene.capture(
                collection: options, content: content, rendering: rendering, distance: 0, timeout: 600
            ).repeated(toCover: distance)
            let floor = try CompositorFloor(scene: scene, rendering: rendering)
            defer { floor.close() }
            floor.warmUp(distance: distance)
            measured { _ = floor.runUnpaced(speed: speed, refresh: rendering.refresh, frames: frames) }
        }
    }

    struct Count: Codable, Sendable, Equatable {
        var workload: String
        var instructions: Int
    }

    /// Runs every workload under callgrind; their instruction counts. Fails with what is missing
    /// when valgrind or strip is not installed.
    static func run(content: Content, options: CollectionOptions) throws(UserFacingError) -> [Count] {
        guard let valgrind = tool("valgrind"), let strip = tool("strip") else {
            throw UserFacingError(
                message: "bench: the instructions scenario needs valgrind and strip (make setup installs them)",
                status: 1)
        }
        guard let own = Bundle.main.executableURL else {
            throw UserFacingError(message: "bench: cannot find this program's file", status: 1)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rainforest-instructions-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let copy = scratch.appendingPathComponent("rainforest")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: own, to: copy)
        } catch {
            throw UserFacingError(message: "bench: cannot copy \(own.path): \(error.localizedDescription)", status: 1)
        }
        try execute(strip, ["--strip-debug", copy.path], what: "strip")
        var counts: [Count] = []
        for workload in Workload.allCases {
            let out = scratch.appendingPathComponent("\(workload.rawValue).callgrind")
            var arguments = [
                "--tool=callgrind", "--callgrind-out-file=\(out.path)", "--collect-atstart=no",
                "--toggle-collect=*InstructionBenchmark*measured*", copy.path, "bench", "--workload", workload.rawValue,
                "--resources", content.resources.root.path,
            ]
            if let cards = options.cards { arguments += ["--cards", "\(cards)"] }
            try execute(valgrind, arguments, environment: ["LP_NUM_THREADS": "0"], what: "valgrind (\(workload.rawValue))")
            guard let text = try? String(contentsOf: out, encoding: .utf8), let total = totals(text) else {
                throw UserFacingError(message: "bench: callgrind wrote no totals for \(workload.rawValue)", status: 1)
            }
            counts.append(Count(workload: workload.rawValue, instructions: total))
        }
        return counts
    }

    /// The instructions a callgrind output file counts: its "summary:" (or "totals:") line.
    static func totals(_ text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix("summary:") || line.hasPrefix("totals:") {
            if let value = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { return value }
        }
        return nil
    }

    static func table(_ counts: [Count]) -> String {
        let rows = counts.map { count in
            [
                count.workload, String(format: "%.1f M", Double(count.instructions) / 1e6),
                Workload(rawValue: count.workload)?.summary ?? "",
            ]
        }
        return BenchReport.format([["workload", "instructions", "what"]] + rows)
    }

    private static func tool(_ name: String) -> URL? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let url = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    private static func execute(
        _ tool: URL, _ arguments: [String], environment extra: [String: String] = [:], what: String
    ) throws(UserFacingError) {
        let outcome = try ChildProcess.run(tool, arguments, environment: extra)
        guard outcome.status == 0 else {
            throw UserFacingError(message: "bench: \(what) failed (status \(outcome.status)):\n\(outcome.errorsTail)", status: 1)
        }
    }
}
