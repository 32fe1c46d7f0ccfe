import Canopy
import CanopyGraphics
import CanopySDL
import Foundation
import Synchronization

/// `bench --scenario display`: what landing a card costs the main thread (starting its display,
/// completing its transaction, uploading its texture), and how fast the display queue draws
/// cards with 1 to 4 workers (how the worker count was chosen).
@MainActor
struct DisplayBenchmark {
    let artist: CardArtist
    /// The viewer's cards (`CardNode`s) measured beside the prepared ones: their display
    /// snapshots a subtree of nodes.
    let deck: CardDeck
    let resources: Resources
    /// Rounds of one screenful of cards each; the figures are medians over rounds.
    var rounds = 31
    var cardsPerRound = 8

    struct Result: Codable, Sendable, Equatable {
        /// Per card, median over rounds: starting the display (snapshot, queueing), in µs.
        var displayStartUs: Double
        /// Per card: the transaction's completion on the main thread (contents set), in µs.
        var commitUs: Double
        /// The same two for the viewer's cards (a rasterized CardNode at 1x), in µs.
        var viewerCardDisplayStartUs: Double
        var viewerCardCommitUs: Double
        /// Per card: the texture upload, at 1x and 2x, in ms.
        var uploadMs1x: Double
        var uploadMs2x: Double
        /// The sum at 1x and at 2x: the main thread's cost of one card, in ms.
        var mainPerCardMs1x: Double
        var mainPerCardMs2x: Double
        /// Cards drawn per second by a display queue of N workers (N = 1...4), median of 5.
        var cardsPerSecondByWorkers: [String: Double]
        var cores: Int

        enum CodingKeys: String, CodingKey {
            case displayStartUs = "display_start_us"
            case commitUs = "commit_us"
            case viewerCardDisplayStartUs = "viewer_card_display_start_us"
            case viewerCardCommitUs = "viewer_card_commit_us"
            case uploadMs1x = "upload_ms_1x"
            case uploadMs2x = "upload_ms_2x"
            case mainPerCardMs1x = "main_per_card_ms_1x"
            case mainPerCardMs2x = "main_per_card_ms_2x"
            case cardsPerSecondByWorkers = "cards_per_s_by_workers"
            case cores
        }
    }

    /// A card whose drawing is done already: it snapshots one bitmap, so its display start is
    /// the scheduler's and the transaction's own cost.
    final class PreparedCardNode: DisplayNode, ContentDrawing, @unchecked Sendable {
        struct Snapshot: Sendable {
            let bitmap: Bitmap
            let size: CGSize
        }
        let bitmap: Bitmap
        init(bitmap: Bitmap) {
            self.bitmap = bitmap
            super.init()
        }
        func drawParameters() -> Snapshot { Snapshot(bitmap: bitmap, size: bounds.size) }
        /// Its bitmap, as it is (the display).
        class func display(
            _ snapshot: Snapshot, size: CGSize, scale: CGFloat,
            isCancelled: @Sendable () -> Bool
        ) -> Bitmap? {
            snapshot.bitmap
        }
        /// Its bitmap over its bounds (inside a rasterizing ancestor, which the benchmark has not).
        class func draw(_ snapshot: Snapshot, in context: GraphicsContext, isCancelled: @Sendable () -> Bool) {
            context.draw(snapshot.bitmap, in: CGRect(origin: .zero, size: snapshot.size))
        }
    }

    func run(app: Application) throws -> Result {
        let card1x = try draw(scale: 1), card2x = try draw(scale: 2)
        let scheduler = DisplayScheduler.shared
        scheduler.install(on: app.runLoop, scale: 1)
        defer { scheduler.uninstall() }
        app.compositor.uploadBudget = .infinity
        defer { app.compositor.uploadBudget = Compositor.defaultUploadBudget }
        // A reference, not a captured var: the observer and the rounds share it explicitly.
        final class UploadLog { var seconds: [Double] = [] }
        let log = UploadLog()
        app.compositor.uploadObserver = { _, seconds in log.seconds.append(seconds) }
        defer { app.compositor.uploadObserver = nil }

        /// Rounds of `cardsPerRound` nodes from `makeNode` (given its place), each until their
        /// textures are uploaded.
        func measure(_ makeNode: (_ index: Int, _ origin: CGPoint) -> DisplayNode) throws(UserFacingError)
            -> (start: Double, commit: Double, upload: Double)
        {
            var starts: [Double] = [], commits: [Double] = [], uploadMedians: [Double] = []
            for round in 0...rounds {  // round 0 warms up
                let group = scheduler.transactionGroup!
                let before = (scheduler.displayStatistics, group.completionSeconds)
                log.seconds.removeAll()
                let nodes = (0..<cardsPerRound).map { i in
                    makeNode(round * cardsPerRound + i, CGPoint(x: CGFloat(i % 4) * 330, y: CGFloat(i / 4) * 400))
                }
                app.rootLayer.setSublayers(nodes.map(\.layer))
                let deadline = MonotonicClock.now() + 30
                while log.seconds.count < cardsPerRound && MonotonicClock.now() < deadline {
                    app.runTurn()
                    Thread.sleep(forTimeInterval: 0.0005)
                }
                guard log.seconds.count >= cardsPerRound else {
                    throw UserFacingError(
                        message:
                            "bench: display: round \(round) uploaded \(log.seconds.count) of \(cardsPerRound) cards in 30 s (\(app.compositor.pendingUploads) uploads and \(group.pendingCount) transactions pending; displays \(scheduler.displayStatistics.count), completed \(group.completedCount), contents \(nodes.map { $0.layerIfLoaded?.contents != nil }))"
                    )
                }
                let after = (scheduler.displayStatistics, group.completionSeconds)
                if round > 0 {
                    starts.append((after.0.seconds - before.0.seconds) / Double(cardsPerRound) * 1e6)
                    commits.append((after.1 - before.1) / Double(cardsPerRound) * 1e6)
                    uploadMedians.append(log.seconds.median * 1e3)
                }
                app.rootLayer.setSublayers([])
                app.runTurn()
            }
            return (starts.median, commits.median, uploadMedians.median)
        }
        func prepared(_ bitmap: Bitmap) -> (Int, CGPoint) -> DisplayNode {
            { [artist] _, origin in
                let node = PreparedCardNode(bitmap: bitmap)
                node.isTransactionContainer = true
                node.frame = CGRect(origin: origin, size: artist.size)
                return node
            }
        }
        let at1x = try measure(prepared(card1x))
        let at2x = try measure(prepared(card2x))
        let viewerCards = try measure { [deck, resources] index, origin in
            let entry = deck.entry(at: index)
            let card = CardNode(
                index: index, entry: entry, imagePath: resources.imageURL(entry.card.image).path,
                scale: 1)
            let size = CGSize(width: CardDeck.cardWidth, height: CardDeck.cardHeight(imageSize: try? entry.imageSize.get()))
            card.frame = CGRect(origin: origin, size: size)
            card.layoutAndApply(SizeRange(exactly: size))
            return card
        }
        return Result(
            displayStartUs: at1x.start, commitUs: at1x.commit,
            viewerCardDisplayStartUs: viewerCards.start, viewerCardCommitUs: viewerCards.commit,
            uploadMs1x: at1x.upload, uploadMs2x: at2x.upload,
            mainPerCardMs1x: (at1x.start + at1x.commit) / 1e3 + at1x.upload,
            mainPerCardMs2x: (at2x.start + at2x.commit) / 1e3 + at2x.upload,
            cardsPerSecondByWorkers: try workerThroughput(),
            cores: ProcessInfo.processInfo.activeProcessorCount)
    }

    private func draw(scale: CGFloat) throws -> Bitmap {
        do {
            guard let bitmap = try artist.draw(scale: scale) else {
                throw UserFacingError(message: "bench: the card drew nothing")
            }
            return bitmap
        } catch let error as FontError {
            throw UserFacingError(message: "bench: \(error)")
        }
    }

    /// Cards (the full card drawing at 1x) drawn per second by queues of 1 to 4 workers, while
    /// the main thread waits: the median of 5 batches of 24 cards each.
    private func workerThroughput() throws -> [String: Double] {
        var result: [String: Double] = [:]
        let artist = self.artist
        for workers in 1...4 {
            let queue = DisplayQueue(workers: workers, name: "bench.draw")
            var rates: [Double] = []
            for batch in 0...5 {
                let batchSize = 24
                let done = DispatchSemaphore(value: 0)
                let start = MonotonicClock.now()
                for _ in 0..<batchSize {
                    queue.enqueue(priority: .visible) {
                        _ = try? artist.draw(scale: 1)
                        done.signal()
                    }
                }
                for _ in 0..<batchSize { done.wait() }
                if batch > 0 { rates.append(Double(batchSize) / (MonotonicClock.now() - start)) }
            }
            queue.shutdown()
            result["\(workers)"] = rates.median
        }
        return result
    }

    static func table(_ r: Result) -> String {
        var rows = [["per card, on the main thread", "median"]]
        rows.append(["display start (snapshot, queueing)", String(format: "%.1f µs", r.displayStartUs)])
        rows.append(["commit (transaction completion)", String(format: "%.1f µs", r.commitUs)])
        rows.append(["viewer card: display start (subtree snapshot)", String(format: "%.1f µs", r.viewerCardDisplayStartUs)])
        rows.append(["viewer card: commit", String(format: "%.1f µs", r.viewerCardCommitUs)])
        rows.append(["texture upload 1x (320 pt wide)", String(format: "%.3f ms", r.uploadMs1x)])
        rows.append(["texture upload 2x", String(format: "%.3f ms", r.uploadMs2x)])
        rows.append(["total 1x", String(format: "%.3f ms", r.mainPerCardMs1x)])
        rows.append(["total 2x", String(format: "%.3f ms", r.mainPerCardMs2x)])
        var text = BenchReport.format(rows)
        let workers = r.cardsPerSecondByWorkers.keys.sorted()
        text +=
            "\n"
            + BenchReport.format(
                [["display workers", "cards/s"]]
                    + workers.map { [$0, String(format: "%.1f", r.cardsPerSecondByWorkers[$0]!)] })
        text += "\n(\(r.cores) cores)"
        return text
    }
}
