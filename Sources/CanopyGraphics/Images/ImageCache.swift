import Dispatch
import Foundation
import Synchronization

/// Decoded (and scaled) bitmaps shared by every worker, keyed by file, target pixel size and crop.
///
/// - Bounded: holds at most `capacityBytes` of pixels; the least recently used bitmaps go first.
///   A bitmap bigger than the whole capacity is returned but not kept.
/// - Single-flight: when several threads ask for the same key at once, one of them loads it and
///   the others block until it is done and get the same bitmap (or the same error).
/// - Errors are delivered to every waiter but never cached: a later request tries again.
///
/// Threads: every method may be called from any thread. `bitmap(...)` can block (it decodes, or
/// waits for another thread's decode), so call it from worker threads, not the main thread.
/// State is guarded by one `Mutex`, never held while decoding.
///
/// The cache does not notice that a file changed on disk: call `removeBitmaps(forPath:)` or
/// `removeAll()` when it does.
public final class ImageCache: Sendable {
    /// What a cached bitmap is: the file, the pixel size it was decoded to cover and the part
    /// of the image decoded.
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        public var path: String
        /// The target size in whole pixels (rounded up), or nil for the image's full size.
        public var fitting: CGSize?
        /// The part of the image decoded (as asked, not clamped), or nil for all of it.
        public var crop: ImageDecoder.Crop?

        /// `fitting` is rounded up to whole pixels, so 319.5 and 320 share an entry; a nil,
        /// infinite or NaN size means full size.
        public init(path: String, fitting: CGSize?, crop: ImageDecoder.Crop? = nil) {
            self.path = path
            self.crop = crop
            if let fitting, fitting.width.isFinite, fitting.height.isFinite {
                self.fitting = CGSize(width: Self.whole(fitting.width), height: Self.whole(fitting.height))
            } else {
                self.fitting = nil
            }
        }

        public var description: String {
            let part = crop.map { ", crop \($0)" } ?? ""
            guard let fitting else { return "\(path) (full size\(part))" }
            return "\(path) (fitting \(Int(fitting.width)) x \(Int(fitting.height))\(part))"
        }

        private static func whole(_ value: CGFloat) -> CGFloat {
            max(1, (value - 1e-6).rounded(.up))
        }
    }

    /// The cache every worker shares, 64 MiB.
    public static let shared = ImageCache()

    /// The most bytes of pixels kept.
    public let capacityBytes: Int

    private let state: Mutex<State>

    /// A cache keeping at most `capacityBytes` of pixels (64 MiB unless told).
    public init(capacityBytes: Int = 64 << 20) {
        precondition(capacityBytes >= 0, "negative cache capacity")
        self.capacityBytes = capacityBytes
        state = Mutex(State())
    }

    /// The file at `path` (only `crop` of it when given) decoded to cover `fitting` (see
    /// `ImageDecoder.decode(contentsOf:fitting:cropping:)`): from the cache, or decoded now (once,
    /// however many threads ask) and cached.
    ///
    /// Any thread; blocks while decoding or waiting for another thread's decode of the same key.
    /// `isCancelled` stops this caller's decode (`ImageError.cancelled`); a caller waiting for a
    /// decode that its own caller cancelled decodes for itself instead.
    public func bitmap(
        contentsOf path: String, fitting: CGSize?,
        cropping crop: ImageDecoder.Crop? = nil, isCancelled: (@Sendable () -> Bool)? = nil
    ) throws(ImageError) -> Bitmap {
        let key = Key(path: path, fitting: fitting, crop: crop)
        let thumbnails = self.thumbnails
        return try bitmap(for: key) { () throws(ImageError) -> Bitmap in
            if let thumbnails, let fitting = key.fitting {
                return try thumbnails.decode(contentsOf: path, fitting: fitting, cropping: key.crop, isCancelled: isCancelled)
            }
            return try ImageDecoder.decode(contentsOf: path, fitting: key.fitting, cropping: key.crop, isCancelled: isCancelled)
        }
    }

    /// A quick stand-in for a decode this cache does not hold yet: the embedded EXIF thumbnail of
    /// a large JPEG (`ImageDecoder.embeddedThumbnail`: at least `ImageDecoder.previewPixels`),
    /// to show while the photo itself decodes (the first image of Texture's multiplex image
    /// node). Nil when the decode to cover `fitting` is cached already, when a desktop thumbnail
    /// covers it (`thumbnails`: as quick and sharp), or when the file carries no usable
    /// thumbnail. Reads the file's segments, never its image data. Any thread.
    public func preview(contentsOf path: String, header: ImageHeader, fitting: CGSize) -> Bitmap? {
        wantsPreview(contentsOf: path, header: header, fitting: fitting) ? ImageDecoder.embeddedThumbnail(contentsOf: path) : nil
    }

    /// Whether `preview` would give a thumbnail, found and checked but not decoded. Any thread.
    public func hasPreview(contentsOf path: String, header: ImageHeader, fitting: CGSize) -> Bool {
        wantsPreview(contentsOf: path, header: header, fitting: fitting) && ImageDecoder.hasEmbeddedThumbnail(contentsOf: path)
    }

    /// Whether a stand-in is worth looking for: a large JPEG whose decode is neither cached nor
    /// covered by a desktop thumbnail.
    private func wantsPreview(contentsOf path: String, header: ImageHeader, fitting: CGSize) -> Bool {
        guard header.format == .jpeg, header.width * header.height >= ImageDecoder.previewPixels else { return false }
        let key = Key(path: path, fitting: fitting)
        guard state.withLock({ $0.entries[key] == nil }) else { return false }
        if let thumbnails, let target = key.fitting {
            let covering = ImageDecoder.fittedPixelSize(width: header.width, height: header.height, fitting: target)
            if thumbnails.validThumbnail(forFile: path, width: header.width, height: header.height, covering: covering) != nil {
                return false
            }
        }
        return true
    }

    /// Thumbnails to read and write for decodes to a target size (`Thumbnails.decode`); nil (the
    /// default) decodes the files themselves. Any thread.
    public var thumbnails: Thumbnails? {
        get { thumbnailStore.withLock { $0 } }
        set { thumbnailStore.withLock { $0 = newValue } }
    }
    private let thumbnailStore = Mutex<Thumbnails?>(nil)

    /// The bitmap for `key`: from the cache (a hit returns the same `Bitmap` instance), or made by
    /// `load` and cached. While one thread runs `load` for a key, other callers of that key wait
    /// for its outcome instead of loading again; an error reaches every waiter and is not cached.
    ///
    /// Any thread. `load` runs on the calling thread with no lock held; it must not ask this
    /// cache for the same key (that would wait for itself).
    public func bitmap(for key: Key, load: () throws(ImageError) -> Bitmap) throws(ImageError) -> Bitmap {
        let step = state.withLock { state -> Step in
            if let bitmap = state.use(key) {
                state.hits += 1
                return .hit(bitmap)
            }
            state.misses += 1
            if var flight = state.flights[key] {
                flight.waiters += 1
                state.flights[key] = flight
                return .wait(flight.signal)
            }
            let signal = Signal()
            state.flights[key] = Flight(signal: signal, generation: state.generation)
            return .load(signal)
        }
        switch step {
        case .hit(let bitmap):
            return bitmap
        case .wait(let signal):
            signal.semaphore.wait()
            signal.semaphore.signal()  // pass the wake-up on to the next waiter
            guard let outcome = signal.outcome.withLock({ $0 }) else {
                preconditionFailure("ImageCache: woken without an outcome")
            }
            if case .failure(.cancelled) = outcome {
                // The loader's caller gave up, not this one: load again (or join a newer load).
                return try bitmap(for: key, load: load)
            }
            return try outcome.get()
        case .load(let signal):
            let outcome: Result<Bitmap, ImageError>
            do throws(ImageError) {
                outcome = .success(try load())
            } catch {
                outcome = .failure(error)
            }
            signal.outcome.withLock { $0 = outcome }
            let capacity = capacityBytes
            state.withLock { state in
                // A removal during the load detached this flight (later callers started a load
                // of their own) and makes its result stale: hand it out, keep it not.
                guard let flight = state.flights[key], flight.signal === signal else { return }
                state.flights[key] = nil
                if case .success(let bitmap) = outcome, flight.generation == state.generation {
                    state.insert(bitmap, for: key, capacity: capacity)
                }
            }
            // One wake-up: each waiter passes it on, so every waiter wakes however many joined.
            signal.semaphore.signal()
            return try outcome.get()
        }
    }

    /// The cached bitmap for `key`, if any, without loading (a hit counts as a use). Any thread.
    public func cachedBitmap(for key: Key) -> Bitmap? {
        state.withLock { $0.use(key) }
    }

    /// Forgets the bitmap for `key`. Loads in flight still reach the callers already waiting
    /// for them but are not cached, and a later request for the key starts a new load, so a
    /// stale decode cannot come back. Any thread.
    public func removeBitmap(for key: Key) {
        state.withLock { state in
            state.remove(key)
            state.flights[key] = nil
            state.generation &+= 1
        }
    }

    /// Forgets every bitmap decoded from `path`, at any size (call it when the file changes).
    /// Any thread.
    public func removeBitmaps(forPath path: String) {
        state.withLock { state in
            for key in state.entries.keys where key.path == path { state.remove(key) }
            state.flights = state.flights.filter { $0.key.path != path }
            state.generation &+= 1
        }
    }

    /// Forgets every bitmap. Loads in flight still reach their callers but are not cached.
    /// Any thread.
    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.newest = nil
            state.oldest = nil
            state.totalBytes = 0
            state.flights.removeAll()
            state.generation &+= 1
        }
    }

    /// The bytes of pixels held now (at most `capacityBytes`). Any thread.
    public var totalBytes: Int { state.withLock { $0.totalBytes } }

    /// The number of bitmaps held now. Any thread.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Requests answered from the cache and requests that had to load or wait, since creation.
    public var statistics: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }

    /// The keys held, most recently used first (for diagnostics and tests). Any thread.
    public var keysByRecentUse: [Key] {
        state.withLock { state in
            var keys: [Key] = []
            var key = state.newest
            while let current = key, let entry = state.entries[current] {
                keys.append(current)
                key = entry.older
            }
            return keys
        }
    }

    /// How many threads are waiting for the load of `key` in flight (tests use it to line up
    /// concurrent callers).
    func waiterCount(for key: Key) -> Int {
        state.withLock { $0.flights[key]?.waiters ?? 0 }
    }

    // MARK: State

    private enum Step {
        case hit(Bitmap)
        case wait(Signal)
        case load(Signal)
    }

    /// How a load's waiters learn its outcome: the loader stores it and signals once; each
    /// waiter, woken, signals again for the next.
    private final class Signal: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Bitmap, ImageError>?>(nil)
    }

    private struct Flight {
        let signal: Signal
        /// The cache's generation when the load began.
        let generation: Int
        var waiters = 0
    }

    /// A cached bitmap, linked into the recency list by key.
    private struct Entry {
        var bitmap: Bitmap
        var newer: Key?
        var older: Key?
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var newest: Key?
        var oldest: Key?
        var totalBytes = 0
        var flights: [Key: Flight] = [:]
        /// Bumped by every removal, so loads that began before it are not cached.
        var generation = 0
        var hits = 0
        var misses = 0

        /// The bitmap for `key`, made the most recently used.
        mutating func use(_ key: Key) -> Bitmap? {
            guard let entry = entries[key] else { return nil }
            if newest != key {
                unlink(key, entry)
                link(key, bitmap: entry.bitmap)
            }
            return entry.bitmap
        }

        mutating func insert(_ bitmap: Bitmap, for key: Key, capacity: Int) {
            remove(key)
            guard bitmap.byteCount <= capacity else { return }
            link(key, bitmap: bitmap)
            totalBytes += bitmap.byteCount
            while totalBytes > capacity, let victim = oldest { remove(victim) }
        }

        mutating func remove(_ key: Key) {
            guard let entry = entries[key] else { return }
            unlink(key, entry)
            totalBytes -= entry.bitmap.byteCount
        }

        /// Takes `key` out of the list and the table.
        private mutating func unlink(_ key: Key, _ entry: Entry) {
            if let newer = entry.newer { entries[newer]?.older = entry.older } else { newest = entry.older }
            if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
            entries[key] = nil
        }

        /// Puts `key` in the table as the newest entry.
        private mutating func link(_ key: Key, bitmap: Bitmap) {
            entries[key] = Entry(bitmap: bitmap, newer: nil, older: newest)
            if let newest { entries[newest]?.newer = key }
            newest = key
            if oldest == nil { oldest = key }
        }
    }
}
