import ArgumentParser
import Canopy
import CanopySDL
import Foundation

/// `rainforest soak`: minutes of random use, headless, to show nothing leaks, hangs or crashes.
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract:
            "Use the viewer at random for a while, headless: scrolls, flings, jumps, resizes, mode and overlay switches, favourite clicks and reloads; report frames, dropped frames, resident memory and texture memory each minute."
    )

    @Option(help: "How long to run, in minutes.")
    var minutes: Double = 10

    @Option(help: "The random seed (the same seed makes the same actions); by default one is picked and printed.")
    var seed: UInt64?

    @Option(help: ArgumentHelp("Write the per-minute figures as JSON to FILE.", valueName: "FILE"))
    var json: String?

    @OptionGroup var collection: CollectionOptions

    @OptionGroup var rendering: HeadlessOptions

    @Option(
        help: ArgumentHelp(
            "Seconds without a frame that count as a hang (status 3); also the longest wait for the cards to settle at the end of a minute (30 at least).",
            valueName: "S"))
    var timeout: Double = 10

    func validate() throws {
        guard minutes > 0, minutes <= 24 * 60 else { throw ValidationError("--minutes must be more than 0 and at most 1440") }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than zero seconds") }
        if let json { try checkWritable(json, option: "--json") }
    }
}

/// One minute of a soak run.
struct SoakMinute: Codable, Sendable, Equatable {
    var minute: Int
    var frames: Int
    var droppedFrames: Int
    var actions: Int
    var rssMB: Double
    /// What the resident memory is made of: anonymous pages (heaps, stacks, the driver's own
    /// mappings), pages of mapped files (code as it runs, fonts) and, of the anonymous pages,
    /// what the C allocator has handed out and not had back.
    var rssAnonymousMB: Double = 0
    var rssFileMB: Double = 0
    /// Nil when the allocator cannot say (a sanitizer's).
    var heapInUseMB: Double?
    /// Texture memory with the viewer back at the top, in the default mode, settled: the same
    /// every minute unless textures leak.
    var steadyTextureMB: Double
    /// The compositor's scratch textures at rest (rounded-clip targets, masks), evicted when unused.
    var scratchTextureMB: Double = 0
    /// The decoded photos the image cache holds (bounded: 64 MiB), part of the resident memory.
    var imageCacheMB: Double
    /// The C allocator's arenas (1: `MallocArenas`); nil when it cannot say.
    var mallocArenas: Int?
    /// The trims of free memory that ended in the minute, and how long the longest took.
    var trims: Int = 0
    var longestTrimMs: Double = 0

    enum CodingKeys: String, CodingKey {
        case minute, frames, actions
        case imageCacheMB = "image_cache_mb"
        case droppedFrames = "dropped_frames"
        case rssMB = "rss_mb"
        case rssAnonymousMB = "rss_anonymous_mb"
        case rssFileMB = "rss_file_mb"
        case heapInUseMB = "heap_in_use_mb"
        case steadyTextureMB = "steady_texture_mb"
        case scratchTextureMB = "scratch_texture_mb"
        case mallocArenas = "malloc_arenas"
        case trims
        case longestTrimMs = "longest_trim_ms"
    }
}
