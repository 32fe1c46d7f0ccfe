import Canopy
import CanopyGraphics
import CanopyMemory
import CanopySDL
import Foundation
import Synchronization

extension SoakCommand {
    /// Resident memory growth over one action worth a line.
    static let notableGrowthMB = 4.0
    /// How many threads Mesa's llvmpipe rasterizes on (0: on the thread that draws).
    static let llvmpipeThreadsVariable = "LP_NUM_THREADS"

    /// Asks Mesa's llvmpipe, unless the environment already says otherwise, to rasterize on the
    /// thread that draws rather than on threads of its own. Threaded, it keeps every scene (a
    /// batch of drawing, one or more a frame) it has made, and a scene lets go of the textures it
    /// drew only when it is taken for another batch; at rest only the first scene is taken
    /// again, so the others keep textures the compositor released long before, for as long as
    /// the rest lasts. The C heap in use at rest then swings by up to 16 MB from one minute to
    /// the next (seed 11: about 61-77 MB, against 59.0-59.2 MB with this setting and 69.3 MB
    /// every minute with SDL's software renderer). The soak measures this program's memory, not
    /// which frames the driver's idle scenes last drew. Mesa reads the variable when the
    /// renderer is made, so this runs before; and while no other thread of ours reads the
    /// environment (setenv is not safe beside getenv). Other drivers ignore it.
    static func keepLlvmpipeOnTheDrawingThread() {
        if getenv(llvmpipeThreadsVariable) == nil { setenv(llvmpipeThreadsVariable, "0", 1) }
    }

    /// The threads of this process whose name starts with `prefix` (/proc/self/task/*/comm):
    /// llvmpipe names its rasterizer threads "llvmpipe-0", "llvmpipe-1"...
    static func threadCount(namedWithPrefix prefix: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix(prefix)
        }.count
    }

    /// The renderer, and for llvmpipe the rasterizer threads it started and the variable that
    /// sets them: "opengl (llvmpipe (LLVM 15.0.6, 256 bits), rasterizer threads 0,
    /// LP_NUM_THREADS=0)".
    static func describeRenderer(_ name: String, device: String?, llvmpipeThreads: Int) -> String {
        guard let device else { return name }
        guard device.contains("llvmpipe") else { return "\(name) (\(device))" }
        let variable = getenv(llvmpipeThreadsVariable).map { String(cString: $0) } ?? "unset"
        return "\(name) (\(device), rasterizer threads \(llvmpipeThreads), \(llvmpipeThreadsVariable)=\(variable))"
    }

    @MainActor
    func execute() throws {
        var options = collection
        if options.cards == nil && options.images == nil { options.cards = 1000 }
        let seed = self.seed ?? UInt64.random(in: 1...UInt64.max)
        var random = SeededRandom(seed: seed)
        Self.keepLlvmpipeOnTheDrawingThread()
        let session = try Session(collection: options, headless: true, rendering: rendering)
        defer { session.app.close() }
        let app = session.app, viewer = session.viewer
        let renderer = Self.describeRenderer(
            app.rendererName, device: app.graphicsDevice,
            llvmpipeThreads: Self.threadCount(namedWithPrefix: "llvmpipe-"))
        app.statusLines = { [viewer.source.statusLine, "mode: \(viewer.mode.names.joined(separator: " + ")) · soak"] }
        print(
            "soak: \(String(format: "%g", minutes)) min, seed \(seed) (rainforest soak --seed \(seed) repeats it), renderer \(renderer)"
        )
        fflush(nil)

        // The watchdog: the main thread stamps every turn; a stamp older than --timeout is a hang.
        let hangLimit = timeout
        let lastTurn = Mutex(MonotonicClock.now())
        let done = Atomic<Bool>(false)
        Thread {
            while !done.load(ordering: .acquiring) {
                Thread.sleep(forTimeInterval: 1)
                let age = MonotonicClock.now() - lastTurn.withLock { $0 }
                if age > hangLimit && !done.load(ordering: .acquiring) {
                    FileHandle.standardError.write(Data("soak: hang: no frame for \(Int(age)) s\n".utf8))
                    Foundation.exit(3)
                }
            }
        }.start()
        defer { done.store(true, ordering: .releasing) }

        let driver = SoakDriver(
            app: app, viewer: viewer, stamp: { lastTurn.withLock { $0 = MonotonicClock.now() } },
            settleTimeout: max(30, timeout))
        let start = MonotonicClock.now()
        var report: [SoakMinute] = []
        let totalMinutes = Int(minutes.rounded(.up))
        // The time kept at the end of each minute to settle: what the last settle took.
        var settleTime = driver.minimumSettleTime
        for minute in 1...totalMinutes {
            let end = start + min(minutes, Double(minute)) * 60
            var frames = 0, dropped = 0, actions = 0
            // The first minute opens with the tour; what it has no time for is left out.
            var tour = minute == 1 ? driver.startTour() : nil
            while MonotonicClock.now() < end - settleTime {
                let action = driver.nextAction(tour: &tour, using: &random)
                let before = ProcessMemory.currentResidentMB()
                let (f, d) = driver.perform(action, using: &random)
                frames += f
                dropped += d
                actions += 1
                // Where memory grows, say after what (the per-minute figure alone cannot tell).
                let grown = ProcessMemory.currentResidentMB() - before
                if grown >= Self.notableGrowthMB {
                    print(String(format: "  rss +%.1f MB after %@ (%@)", grown, "\(action)", driver.describe()))
                }
            }
            // Back to the top, in the default mode, settled: textures should be what they were.
            let settleStart = MonotonicClock.now()
            let (f, d) = driver.settleAtTop()
            settleTime = max(driver.minimumSettleTime, MonotonicClock.now() - settleStart)
            frames += f
            dropped += d
            let memory = ProcessMemory.breakdown()
            let trims = app.takeMemoryTrimTimes()
            let row = SoakMinute(
                minute: minute, frames: frames, droppedFrames: dropped, actions: actions,
                rssMB: memory.residentMB, rssAnonymousMB: memory.anonymousMB, rssFileMB: memory.fileMB,
                heapInUseMB: memory.heapInUseMB,
                steadyTextureMB: Double(app.compositor.textureBytes) / 1_048_576,
                scratchTextureMB: Double(app.compositor.scratchTextureBytes) / 1_048_576,
                imageCacheMB: Double(ImageCache.shared.totalBytes) / 1_048_576,
                mallocArenas: MallocArenas.count(), trims: trims.count, longestTrimMs: trims.longest * 1000)
            report.append(row)
            let heap = row.heapInUseMB.map { String(format: "%.1f", $0) } ?? "unknown"
            let arenas = row.mallocArenas.map(String.init) ?? "unknown"
            print(
                String(
                    format:
                        "minute %d: %d frames, %d dropped, %d actions, rss %.1f MB (anonymous %.1f, files %.1f; heap in use %@, malloc arenas %@), textures at rest %.1f MB (scratch %.1f), image cache %.1f MB, memory trims %d (longest %.1f ms)",
                    row.minute, row.frames, row.droppedFrames, row.actions, row.rssMB, row.rssAnonymousMB, row.rssFileMB,
                    heap, arenas, row.steadyTextureMB, row.scratchTextureMB, row.imageCacheMB, row.trims, row.longestTrimMs))
            fflush(nil)  // each minute as it ends, even into a file or a pipe
        }
        let verdict = SoakVerdict(report)
        print(verdict.summary)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                try encoder.encode(
                    SoakReport(
                        seed: seed, renderer: renderer, minutes: report, rssGrowth: verdict.rssGrowth,
                        textureSpread: verdict.textureSpread, passed: verdict.passed)
                )
                .write(to: URL(fileURLWithPath: json))
                print("wrote \(json)")
            } catch {
                throw UserFacingError(message: "\(json): cannot write (\(error.localizedDescription))", status: 1)
            }
        }
        if !verdict.passed {
            throw UserFacingError(message: "soak: failed: \(verdict.failures.joined(separator: "; "))", status: 1)
        }
    }
}

/// What `--json` writes.
struct SoakReport: Codable, Sendable {
    var seed: UInt64
    /// The renderer, as the first line gives it.
    var renderer: String
    var minutes: [SoakMinute]
    var rssGrowth: Double?
    var textureSpread: Double
    var passed: Bool
    enum CodingKeys: String, CodingKey {
        case seed, renderer, minutes, passed
        case rssGrowth = "rss_growth_after_first_minute"
        case textureSpread = "steady_texture_spread"
    }
}

/// The soak's criteria: resident memory grows less than 5% after the first minute, and texture
/// memory at rest comes back to the same value (within 10%, a card more or less in range) every
/// minute.
struct SoakVerdict {
    static let maximumRSSGrowth = 0.05
    static let maximumTextureSpread = 0.10

    let rssGrowth: Double?
    let textureSpread: Double
    let failures: [String]
    var passed: Bool { failures.isEmpty }

    init(_ minutes: [SoakMinute]) {
        var failures: [String] = []
        if let first = minutes.first, minutes.count > 1, first.rssMB > 0 {
            let peak = minutes.dropFirst().map(\.rssMB).max() ?? first.rssMB
            rssGrowth = (peak - first.rssMB) / first.rssMB
            if rssGrowth! >= Self.maximumRSSGrowth {
                failures.append(String(format: "resident memory grew %.1f%% after the first minute", rssGrowth! * 100))
            }
        } else {
            rssGrowth = nil
        }
        let textures = minutes.map(\.steadyTextureMB)
        if let low = textures.min(), let high = textures.max(), high > 0 {
            textureSpread = (high - low) / high
        } else {
            textureSpread = 0
        }
        if textureSpread > Self.maximumTextureSpread {
            failures.append(String(format: "texture memory at rest varied by %.0f%%", textureSpread * 100))
        }
        self.failures = failures
    }

    var summary: String {
        let growth = rssGrowth.map { String(format: "%+.1f%%", $0 * 100) } ?? "n/a (one minute)"
        return "soak: rss after the first minute \(growth) (limit +5%), texture memory at rest within "
            + String(format: "%.1f%%", textureSpread * 100) + " (limit 10%): " + (passed ? "passed" : "FAILED")
    }
}
