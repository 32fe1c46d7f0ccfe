import CCodecs
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Thumbnails shared with the desktop: the freedesktop.org Thumbnail Managing Standard.
///
/// A thumbnail is a PNG under `root` (`$XDG_CACHE_HOME/thumbnails`, else `~/.cache/thumbnails`)
/// in the folder of its size (normal 128, large 256, x-large 512, xx-large 1024 pixels on its
/// longer side), named by the MD5 of the file's URI (`file://` and the path, escaped as GLib
/// escapes it, so that the names match those file managers write), carrying `Thumb::URI` and
/// `Thumb::MTime` (the file's modification time in whole seconds). A thumbnail is valid only while
/// both match the file. Files that cannot be thumbnailed get an entry under
/// `fail/<software>/`, so no program tries them again until they change.
///
/// Thumbnails are the image as shown (turned by its EXIF orientation, in sRGB), no bigger than
/// their size's box and never bigger than the image. They are written atomically (a temporary
/// file in the same folder, renamed), private to the user (0600 in 0700 folders).
///
/// Threads: any; the store holds no mutable state (the file system is the state).
public struct Thumbnails: Sendable {
    /// The standard's sizes, by the longer side of their box.
    public enum Size: Int, CaseIterable, Sendable, Comparable {
        case normal = 128
        case large = 256
        case xLarge = 512
        case xxLarge = 1024

        /// The folder's name.
        public var directory: String {
            switch self {
            case .normal: return "normal"
            case .large: return "large"
            case .xLarge: return "x-large"
            case .xxLarge: return "xx-large"
            }
        }

        public static func < (a: Size, b: Size) -> Bool { a.rawValue < b.rawValue }

        /// The size of this thumbnail of a `width` x `height` image: the image fitted in the box
        /// (aspect kept, each side at least 1), or nil when the image is no bigger than the box
        /// (the image itself is then as good as a thumbnail).
        public func thumbnailSize(width: Int, height: Int) -> (width: Int, height: Int)? {
            let side = rawValue
            guard width > 0, height > 0, max(width, height) > side else { return nil }
            if width >= height { return (side, max(1, (height * side + width / 2) / width)) }
            return (max(1, (width * side + height / 2) / height), side)
        }
    }

    /// The folder that holds the size folders and fail/.
    public let root: URL
    /// The name under fail/ for this program's failures, and the PNGs' Software field.
    public let software: String

    public init(root: URL, software: String) {
        self.root = root
        self.software = software
    }

    /// `$XDG_CACHE_HOME/thumbnails` (when set to an absolute path), else `$HOME/.cache/thumbnails`.
    public static func standardRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("thumbnails")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/thumbnails")
    }

    // MARK: Names

    /// The file's URI as GLib makes it (`g_filename_to_uri`): `file://` and the absolute path,
    /// every byte escaped as %XX (upper case) except letters, digits and `!$&'()*+,-./:=@_~`.
    public static func uri(forPath path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var uri = "file://"
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in absolute.utf8 {
            if Self.unescaped.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        uri += String(decoding: bytes, as: UTF8.self)
        return uri
    }

    private static let unescaped: Set<UInt8> = Set(
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!$&'()*+,-./:=@_~".utf8))

    /// The thumbnail's file name for `uri`: the MD5 of the URI in lower-case hex, then ".png".
    /// Nil when libcrypto refuses MD5 (a FIPS configuration): there are then no thumbnails.
    public static func fileName(forURI uri: String) -> String? {
        var digest = [UInt8](repeating: 0, count: 16)
        let bytes = Array(uri.utf8)
        guard ccodecs_md5(bytes, bytes.count, &digest) == 0 else { return nil }
        return digest.map { String(format: "%02x", $0) }.joined() + ".png"
    }

    /// Where the thumbnail of the file at `path` of `size` lives (whether or not it exists); nil
    /// without MD5.
    public func path(forFile path: String, size: Size) -> String? {
        Self.fileName(forURI: Self.uri(forPath: path)).map {
            root.appendingPathComponent(size.directory).appendingPathComponent($0).path
        }
    }

    /// Where this program's failure entry for the file at `path` lives; nil without MD5.
    public func failurePath(forFile path: String) -> String? {
        Self.fileName(forURI: Self.uri(forPath: path)).map {
            root.appendingPathComponent("fail").appendingPathComponent(software).appendingPathComponent($0).path
        }
    }

    /// The file's modification time in whole seconds, or nil when it cannot be read.
    public static func modificationTime(ofFile path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mtim.tv_sec)
    }

    // MARK: Reading

    /// Whether the PNG at `thumbnailPath` is a valid thumbnail of the file at `path`: its
    /// Thumb::URI names the file and its Thumb::MTime is the file's modification time. Reads the
    /// PNG's chunk headers and text chunks (before or after the image data, as programs differ),
    /// not its pixels.
    public static func isValid(thumbnailPath: String, forFile path: String, modificationTime: Int) -> Bool {
        func text(_ key: String) -> String? {
            var buffer = [CChar](repeating: 0, count: 8192)
            guard ccodecs_png_find_text(thumbnailPath, key, &buffer, buffer.count) == 0 else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        guard let mtime = text("Thumb::MTime"), Int(mtime) == modificationTime else { return false }
        return text("Thumb::URI") == Self.uri(forPath: path)
    }

    /// The path of the smallest valid thumbnail of the file at `path` (a `width` x `height` image
    /// as shown) that covers `target` pixels, or nil when there is none (or the image is no
    /// bigger than the target: the image itself is then what to decode).
    public func validThumbnail(
        forFile path: String, width: Int, height: Int, covering target: (width: Int, height: Int)
    ) -> (path: String, size: Size)? {
        guard let mtime = Self.modificationTime(ofFile: path) else { return nil }
        for size in Self.sizes(covering: target, width: width, height: height) {
            guard let candidate = self.path(forFile: path, size: size) else { return nil }
            if Self.isValid(thumbnailPath: candidate, forFile: path, modificationTime: mtime) {
                return (candidate, size)
            }
        }
        return nil
    }

    /// The sizes whose thumbnail of a `width` x `height` image covers `target`, smallest first.
    public static func sizes(
        covering target: (width: Int, height: Int), width: Int, height: Int
    ) -> [Size] {
        Size.allCases.filter { size in
            guard let box = size.thumbnailSize(width: width, height: height) else { return false }
            return box.width >= target.width && box.height >= target.height
        }
    }

    /// Whether this program recorded that the file at `path`, as it is now, cannot be thumbnailed.
    public func hasFailure(forFile path: String) -> Bool {
        guard let mtime = Self.modificationTime(ofFile: path), let entry = failurePath(forFile: path) else { return false }
        return Self.isValid(thumbnailPath: entry, forFile: path, modificationTime: mtime)
    }

    // MARK: Writing

    /// Why a thumbnail could not be written.
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): cannot write the thumbnail (\(reason))" }
    }

    /// Writes `bitmap` (the image as shown, fitted to `size`'s box) as the thumbnail of the file
    /// at `path`, a `width` x `height` image last modified at `modificationTime`: to a temporary
    /// file beside it, then renamed over it, so a reader never sees half a thumbnail.
    public func write(
        _ bitmap: Bitmap, forFile path: String, size: Size, imageWidth: Int, imageHeight: Int, modificationTime: Int
    ) throws(WriteError) {
        guard let destination = self.path(forFile: path, size: size) else {
            throw WriteError(path: path, reason: "MD5 is not available")
        }
        try writePNG(
            bitmap, to: destination,
            fields: [
                ("Thumb::URI", Self.uri(forPath: path)), ("Thumb::MTime", String(modificationTime)),
                ("Thumb::Image::Width", String(imageWidth)), ("Thumb::Image::Height", String(imageHeight)),
                ("Software", software),
            ])
    }

    /// Records that the file at `path`, last modified at `modificationTime`, cannot be thumbnailed.
    public func writeFailure(forFile path: String, modificationTime: Int) throws(WriteError) {
        guard let entry = failurePath(forFile: path) else { throw WriteError(path: path, reason: "MD5 is not available") }
        try writePNG(
            Bitmap(width: 1, height: 1, pixels: [0, 0, 0, 0]), to: entry,
            fields: [("Thumb::URI", Self.uri(forPath: path)), ("Thumb::MTime", String(modificationTime)), ("Software", software)])
    }

    private func writePNG(_ bitmap: Bitmap, to destination: String, fields: [(String, String)]) throws(WriteError) {
        let folder = (destination as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw WriteError(path: destination, reason: "cannot make \(folder): \(error.localizedDescription)")
        }
        let temporary =
            folder + "/.\((destination as NSString).lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        var error = ccodecs_error()
        let straight = bitmap.straightAlphaPixels()
        let keys = fields.map { strdup($0.0) }, values = fields.map { strdup($0.1) }
        defer { for pointer in keys + values { free(pointer) } }
        let status = straight.withUnsafeBufferPointer { pixels in
            keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { k in
                values.map { UnsafePointer($0) }.withUnsafeBufferPointer { v in
                    ccodecs_png_write(
                        temporary, pixels.baseAddress, Int32(bitmap.width), Int32(bitmap.height), bitmap.width * 4,
                        k.baseAddress, v.baseAddress, Int32(fields.count), &error)
                }
            }
        }
        guard status == 0 else {
            unlink(temporary)
            let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw WriteError(path: destination, reason: message)
        }
        guard rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WriteError(path: destination, reason: reason)
        }
    }
}

// MARK: Decoding through thumbnails

extension Thumbnails {
    /// Where thumbnails are made and written: one at a time, off the decoding threads, on a
    /// thread of its own at nice 15, once the queue has been quiet for a moment, so that making
    /// them gives way to displays and frames.
    private static let writer = ThumbnailWriter()

    /// Blocks until every thumbnail queued for writing so far has been written (or failed).
    public static func waitForWrites() {
        writer.waitUntilIdle()
    }

    /// Drops the thumbnails still queued, stops the decode of the one being made, and blocks until
    /// the one being written, if any, is whole: for a program about to exit (the others are made
    /// next time).
    public static func finishWrites() {
        writer.stopping.store(true, ordering: .relaxed)  // the decode in progress stops early
        writer.dropQueued()
        writer.waitUntilIdle()
        writer.stopping.store(false, ordering: .relaxed)
    }

    /// The file at `path` decoded to cover `fitting` pixels (`crop` of it, in the shown image's
    /// pixels, when given), as `ImageDecoder.decode(contentsOf:fitting:cropping:isCancelled:)`
    /// would, but from its thumbnail when it has one big enough: the smallest standard size whose
    /// thumbnail covers the target. Without one, the image is decoded for the caller as usual
    /// and its thumbnail made afterwards (queued: decoded again to the thumbnail's size and
    /// written on the writer's thread, at a low priority, so that the first screen and the
    /// scroll never wait for it); an image that cannot be decoded gets a failure entry. An image
    /// no bigger than the box, or a target bigger than the largest size, is decoded as usual,
    /// without thumbnails.
    public func decode(
        contentsOf path: String, fitting: CGSize, cropping crop: ImageDecoder.Crop?,
        isCancelled: (@Sendable () -> Bool)? = nil
    ) throws(ImageError) -> Bitmap {
        let header = try ImageHeader.read(contentsOf: path)
        try ImageDecoder.checkPixelLimit(header, path: path)
        let width = header.width, height = header.height
        let region = crop?.clamped(width: width, height: height) ?? ImageDecoder.Crop(x: 0, y: 0, width: width, height: height)
        let target = ImageDecoder.fittedPixelSize(width: region.width, height: region.height, fitting: fitting)
        // The smallest size whose thumbnail, scaled like the image, still has the target's pixels
        // over the region.
        let size = Size.allCases.first { size in
            guard let box = size.thumbnailSize(width: width, height: height) else { return false }
            return region.width * box.width >= target.width * width && region.height * box.height >= target.height * height
        }
        guard let size, let box = size.thumbnailSize(width: width, height: height),
            let mtime = Self.modificationTime(ofFile: path), self.path(forFile: path, size: size) != nil
        else {
            return try ImageDecoder.decode(contentsOf: path, fitting: fitting, cropping: crop, isCancelled: isCancelled)
        }
        // A valid thumbnail of that size or larger (another program may have made only a larger one).
        for candidate in Size.allCases where candidate >= size {
            guard let thumbnail = self.path(forFile: path, size: candidate),
                Self.isValid(thumbnailPath: thumbnail, forFile: path, modificationTime: mtime),
                let thumbnailHeader = try? ImageHeader.read(contentsOf: thumbnail),
                let expected = candidate.thumbnailSize(width: width, height: height),
                // Another program's may be smaller, or not turned as the image is shown: only one
                // of the size and shape this size's box gives the image is used.
                abs(thumbnailHeader.width - expected.width) <= 2, abs(thumbnailHeader.height - expected.height) <= 2
            else { continue }
            let scaled = Self.scale(region, by: (thumbnailHeader.width, thumbnailHeader.height), of: (width, height))
            if let bitmap = try? ImageDecoder.decode(
                contentsOf: thumbnail, fitting: CGSize(width: target.width, height: target.height),
                cropping: scaled, isCancelled: isCancelled)
            {
                return bitmap
            }
            try checkCancelled(isCancelled, path: path)  // a damaged thumbnail: try the next, or the image
        }
        // None yet: decode for the caller as usual (the first screen must not wait for a
        // thumbnail), and make the thumbnail afterwards, on the writer's low-priority thread.
        let bitmap: Bitmap
        do throws(ImageError) {
            bitmap = try ImageDecoder.decode(contentsOf: path, fitting: fitting, cropping: crop, isCancelled: isCancelled)
        } catch {
            // The file's own fault (not the caller's crop, a cancel or a lack of memory): noted, so
            // that no program tries to make its thumbnail again until it changes.
            let store = self
            if Self.isFileFault(error), !hasFailure(forFile: path) {
                Self.writer.enqueue { try? store.writeFailure(forFile: path, modificationTime: mtime) }
            }
            throw error
        }
        let store = self
        Self.writer.enqueue { store.makeThumbnail(ofFile: path, size: size, box: box, modificationTime: mtime) }
        return bitmap
    }

    /// Whether an error says the file cannot be thumbnailed, as it is (a cancelled decode does not).
    private static func isFileFault(_ error: ImageError) -> Bool {
        switch error {
        case .notAnImage, .truncated, .truncatedData, .corrupt, .unsupported: return true
        default: return false
        }
    }

    /// Decodes the file to `box` and writes it as its thumbnail of `size`, unless a valid one
    /// appeared meanwhile (another request, another program) or the file changed since.
    private func makeThumbnail(ofFile path: String, size: Size, box: (width: Int, height: Int), modificationTime: Int) {
        guard let destination = self.path(forFile: path, size: size),
            Self.modificationTime(ofFile: path) == modificationTime,
            !Self.isValid(thumbnailPath: destination, forFile: path, modificationTime: modificationTime),
            let header = try? ImageHeader.read(contentsOf: path)
        else { return }
        do throws(ImageError) {
            let writer = Self.writer
            let whole = try ImageDecoder.decode(
                contentsOf: path, fitting: CGSize(width: box.width, height: box.height),
                isCancelled: { writer.stopping.load(ordering: .relaxed) })
            try? write(
                whole, forFile: path, size: size, imageWidth: header.width, imageHeight: header.height,
                modificationTime: modificationTime)
        } catch {
            if Self.isFileFault(error) { try? writeFailure(forFile: path, modificationTime: modificationTime) }
        }
    }

    private func checkCancelled(_ isCancelled: (@Sendable () -> Bool)?, path: String) throws(ImageError) {
        if isCancelled?() == true { throw .cancelled(path: path) }
    }

    /// `region` of a `image` pixel image mapped onto a `thumbnail` pixel one, rounded outward.
    private static func scale(
        _ region: ImageDecoder.Crop, by thumbnail: (Int, Int), of image: (Int, Int)
    ) -> ImageDecoder.Crop {
        let left = region.x * thumbnail.0 / image.0, top = region.y * thumbnail.1 / image.1
        let right = min(thumbnail.0, ((region.x + region.width) * thumbnail.0 + image.0 - 1) / image.0)
        let bottom = min(thumbnail.1, ((region.y + region.height) * thumbnail.1 + image.1 - 1) / image.1)
        return ImageDecoder.Crop(x: left, y: top, width: max(1, right - left), height: max(1, bottom - top))
    }
}

/// A queue of writes run one at a time on a low-priority thread of its own (started on first use).
private final class ThumbnailWriter: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var running = false
        /// When the last job was queued (monotonic seconds).
        var lastQueued: TimeInterval = 0
    }
    /// How long the queue must have been quiet before a job starts: thumbnails are made when the
    /// viewer rests (its first screen shown, the scroll stopped), not while it is busy decoding.
    static let quietPeriod: TimeInterval = 0.3
    private let state = Mutex(State())
    /// Set while a program finishes: the thumbnail being made stops decoding (and is not written).
    let stopping = Atomic<Bool>(false)
    private let available = DispatchSemaphore(value: 0)
    private let idle = Mutex<[DispatchSemaphore]>([])
    /// The nice value of the writing thread (display workers run at 5, the main thread at 0).
    static let niceValue: Int32 = 15

    init() {
        let thread = Thread { [self] in
            Thread.current.name = "thumbnails"
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceValue)
            while true {
                available.wait()
                while true {  // wait for the queue to rest
                    let quiet = state.withLock { Self.now() - $0.lastQueued }
                    if quiet >= Self.quietPeriod { break }
                    usleep(useconds_t((Self.quietPeriod - quiet) * 1_000_000) + 1000)
                }
                let job = state.withLock { state -> (@Sendable () -> Void)? in
                    guard !state.jobs.isEmpty else { return nil }
                    state.running = true
                    return state.jobs.removeFirst()
                }
                job?()  // nil: a job that was dropped
                let waiters = state.withLock { state -> [DispatchSemaphore] in
                    state.running = false
                    guard state.jobs.isEmpty else { return [] }
                    return idle.withLock { waiting in
                        defer { waiting = [] }; return waiting
                    }
                }
                for waiter in waiters { waiter.signal() }
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The most jobs kept waiting: past it the oldest are dropped (a reader racing through a big
    /// folder wants the thumbnails of where they are now; the others are made next time).
    static let capacity = 64

    func enqueue(_ job: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.lastQueued = Self.now()
            state.jobs.append(job)
            if state.jobs.count > Self.capacity { state.jobs.removeFirst(state.jobs.count - Self.capacity) }
        }
        available.signal()
    }

    private static func now() -> TimeInterval {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9
    }

    func dropQueued() {
        state.withLock { $0.jobs.removeAll() }
    }

    /// Blocks until the queue is empty and no write runs.
    func waitUntilIdle() {
        let semaphore = DispatchSemaphore(value: 0)
        let busy = state.withLock { state -> Bool in
            guard state.running || !state.jobs.isEmpty else { return false }
            idle.withLock { $0.append(semaphore) }
            return true
        }
        if busy { semaphore.wait() }
    }
}
