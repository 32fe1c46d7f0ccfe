import CanopyGraphics
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of images as cards (`--images DIR`): every visible regular file in it, in file-name
/// order, one card each. An image's card is named after the file and says its pixel size and
/// format; a file that is not an image, or whose header is broken, becomes an error card that
/// says why (its photo area shows the image node's error state, like any unreadable photo).
///
/// Nothing is read at start: the first batch fetch lists the folder, and each fetch reads the
/// headers of one page of files, on the fetch's background queue, so a folder of thousands of
/// files opens at once and fills in as the reader scrolls. Any thread; calls of `load` (a batch
/// fetch's, and the first screen's decoding thread's) run one at a time, so the folder is listed
/// once.
final class ImageFolder: CardProvider {
    /// The folder, absolute.
    let url: URL

    private struct State {
        /// The visible regular files' names, in order, once listed.
        var names: [String]?
        /// The cards of the first `items.count` names.
        var items: [CardItem] = []
        /// Why the folder could not be listed.
        var problem: String?
    }
    private let state = Mutex(State())

    init(url: URL) {
        self.url = url
    }

    /// Chosen files (dropped on the window) instead of a whole folder: their cards in the order
    /// given; `url` is the folder they all lie in, and each card's file is named from there.
    init(files: [URL]) {
        let folders = files.map { $0.standardizedFileURL.deletingLastPathComponent().pathComponents }
        var common = folders.first ?? ["/"]
        for folder in folders.dropFirst() {
            common = Array(zip(common, folder).prefix { $0.0 == $0.1 }.map(\.0))
        }
        let root = URL(fileURLWithPath: common.isEmpty ? "/" : NSString.path(withComponents: common))
        url = root
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        state.withLock { state in
            state.names = files.map { String($0.standardizedFileURL.path.dropFirst(prefix.count)) }
        }
    }

    /// What a drop on the window or the command line's paths open: the files among `paths`
    /// (absolute, or relative to the current folder) in the order given, or when there are none,
    /// the first folder; nil when none of them exists.
    static func opening(_ paths: [String]) -> ImageFolder? {
        var folders: [URL] = [], files: [URL] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            let url = URL(fileURLWithPath: path).standardizedFileURL
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue { folders.append(url) } else { files.append(url) }
        }
        if !files.isEmpty { return ImageFolder(files: files) }
        return folders.first.map { ImageFolder(url: $0) }
    }

    // MARK: CardProvider

    func initialCount(pageSize: Int) -> Int { 0 }

    var totalCount: Int? { state.withLock { $0.names?.count } }

    func load(upTo count: Int) -> Int {
        loading.withLock { _ in loadAlone(upTo: count) }
    }

    /// Serialises `load`: a call waits for one in progress, then reads only what it left.
    private let loading = Mutex(())

    private func loadAlone(upTo count: Int) -> Int {
        let (listed, ready) = state.withLock { ($0.names, $0.items.count) }
        let names: [String]
        if let listed {
            names = listed
        } else {
            do throws(ImageFolderError) {
                names = try Self.list(url)
            } catch {
                state.withLock {
                    $0.names = []; $0.problem = error.reason
                }
                return 0
            }
            state.withLock { $0.names = names }
        }
        let end = min(max(0, count), names.count)
        guard ready < end else { return min(ready, max(0, count)) }
        let page = names[ready..<end].map { Self.item(forFile: $0, in: url) }
        return state.withLock { s in
            // Calls may overlap (a fetch cancelled by a reload is still reading when the next
            // starts): append only what another call has not appended meanwhile, so every file
            // appears once and in order.
            if s.items.count < end { s.items += page.suffix(end - s.items.count) }
            return min(s.items.count, count)
        }
    }

    func item(at index: Int) -> CardItem { state.withLock { $0.items[index] } }

    var readyCount: Int { state.withLock { $0.items.count } }

    var noun: String { "files" }
    var place: String? { url.lastPathComponent }
    var problem: String? { state.withLock { $0.problem } }

    // MARK: The folder

    /// Checks that `path` names a folder that can be listed and holds at least one file to show
    /// (reading its entries only up to the first such file), and returns it absolute. For the
    /// command line: the error names the option and the path as given.
    static func check(_ path: String, relativeTo currentDirectory: URL? = nil) throws(ImageFolderError) -> URL {
        let url = URL(fileURLWithPath: path, relativeTo: currentDirectory).standardizedFileURL
        func failure(_ reason: String) -> ImageFolderError { ImageFolderError(path: path, reason: reason) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw failure("no such folder")
        }
        guard isDirectory.boolValue else { throw failure("not a folder") }
        do throws(ImageFolderError) {
            guard try !scan(url, stoppingAtFirst: true).isEmpty else {
                throw failure("no files in it (hidden files and subfolders are skipped)")
            }
        } catch {
            throw failure(error.reason)
        }
        return url
    }

    /// The files the folder shows as cards: regular files and links to them, and broken links
    /// (their cards say so); not hidden files (a leading dot), subfolders or other special
    /// files. In the Finder's order (`localizedStandardCompare`: "img2" before "img10", case
    /// aside), ties by code point, so the order never depends on the listing's.
    static func list(_ url: URL) throws(ImageFolderError) -> [String] {
        try scan(url, stoppingAtFirst: false).sorted { a, b in
            switch a.localizedStandardCompare(b) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return a < b
            }
        }
    }

    /// Where `d_name` lies in a `dirent`.
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

    private static func scan(_ url: URL, stoppingAtFirst: Bool) throws(ImageFolderError) -> [String] {
        guard let directory = opendir(url.path) else {
            throw ImageFolderError(path: url.path, reason: "cannot read (\(systemMessage(errno)))")
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw ImageFolderError(path: url.path, reason: "cannot read (\(systemMessage(errno)))") }
                break
            }
            // The name is read where it lies, up to its NUL: glibc packs the entries it reads, each
            // only as long as its name, so copying the whole `d_name` (256 bytes) read past the
            // end of the last entry in readdir's buffer (AddressSanitizer: heap-buffer-overflow).
            let name = String(
                cString: UnsafeRawPointer(entry).advanced(by: Self.nameOffset)
                    .assumingMemoryBound(to: CChar.self))
            if name.hasPrefix(".") { continue }  // hidden, and "." and ".."
            let type = entry.pointee.d_type
            if type == UInt8(DT_DIR) { continue }
            if type != UInt8(DT_REG) {
                // A link, or a file system that does not say: look (following links).
                var info = stat()
                let path = url.appendingPathComponent(name).path
                if stat(path, &info) == 0 {
                    guard info.st_mode & S_IFMT == S_IFREG else { continue }
                } else {
                    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { continue }
                }
            }
            names.append(name)
            if stoppingAtFirst { break }
        }
        return names
    }

    // MARK: Cards

    /// The card of one file: the header read (never the image), or why it could not be.
    static func item(forFile name: String, in folder: URL) -> CardItem {
        let path = folder.appendingPathComponent(name).path
        let size: Result<CGSize, ImageError>
        let description: String
        var isAnimated = false
        do throws(ImageError) {
            let header = try ImageHeader.read(contentsOf: path)
            try ImageDecoder.checkPixelLimit(header, path: path)
            size = .success(CGSize(width: header.width, height: header.height))
            isAnimated = header.isAnimated
            description =
                "\(header.width) x \(header.height) px · \(header.format.displayName)" + (isAnimated ? " · animated" : "")
        } catch {
            size = .failure(error)
            description = capitalisingFirstLetter(reason(for: error, path: path))
        }
        let file = (name as NSString).lastPathComponent
        let card = Card(name: cardName(fileName: file), image: name, description: description, credit: file)
        return CardItem(entry: CardDeck.Entry(card: card, imageSize: size, isAnimated: isAnimated), imagePath: path)
    }

    /// A card's name from its file's: the name without its extension, underscores as spaces
    /// ("IMG_2041.jpg" gives "IMG 2041"); hyphens stay, so dates read as dates. A name that
    /// would be blank keeps the whole file name.
    static func cardName(fileName: String) -> String {
        let base = ((fileName as NSString).lastPathComponent as NSString).deletingPathExtension
        let words = base.replacingOccurrences(of: "_", with: " ").split(whereSeparator: \.isWhitespace)
        return words.isEmpty ? fileName : words.joined(separator: " ")
    }

    /// ImageError's reason, told more exactly for the cases whose cause the header reader
    /// cannot see: an empty file, a link to nothing, a name that is not UTF-8 (the listing
    /// decoded it with replacement characters, so the path no longer names the file).
    private static func reason(for error: ImageError, path: String) -> String {
        var info = stat()
        switch error {
        case .notAnImage where stat(path, &info) == 0 && info.st_size == 0:
            return "not an image (the file is empty)"
        case .fileMissing where lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK:
            return "cannot read (a link to a missing file)"
        case .fileMissing where path.contains("\u{FFFD}"):
            return "cannot read (the file's name is not UTF-8)"
        default:
            return error.reason
        }
    }

    private static func capitalisingFirstLetter(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    private static func systemMessage(_ code: Int32) -> String {
        strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}

/// Why a folder of images cannot be shown; for the command line, it names the option.
struct ImageFolderError: Error, Equatable, CustomStringConvertible {
    /// The folder as given.
    var path: String
    var reason: String

    var description: String { "--images \(path): \(reason)" }
}
