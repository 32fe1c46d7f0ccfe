import Foundation

/// Why an image could not be read, with a human reason.
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file at the path.
    case fileMissing(path: String)
    /// The file exists but could not be read: permissions, a directory, an I/O error (the system's text).
    case unreadable(path: String, reason: String)
    /// The file starts with no known image signature.
    case notAnImage(path: String)
    /// The signature is known but the header is cut short.
    case truncated(path: String, format: ImageFormat)
    /// A known format in a variant we cannot size, or a header giving a zero width or height.
    case unsupported(path: String, reason: String)
    /// Either side is over the limit, or (when both sides are within `limit`) the image has more than
    /// `limit` pixels, the most a decoder that must hold the whole image allows.
    case tooLarge(path: String, width: Int, height: Int, limit: Int)
    /// The header was whole but the image data ends before the picture is complete.
    case truncatedData(path: String, format: ImageFormat)
    /// The image data is damaged: a bad checksum, an invalid compressed stream, garbage bytes.
    case corrupt(path: String, reason: String)
    /// The image has more pixels than the decoder is allowed to read (`ImageDecoder.pixelLimit`);
    /// known from the header, before any pixel is read.
    case overPixelLimit(path: String, pixels: Int, limit: Int)
    /// The caller cancelled the decode.
    case cancelled(path: String)

    /// The path the error is about, as given.
    private var subjectPath: String {
        switch self {
        case .fileMissing(let path), .unreadable(let path, _), .notAnImage(let path),
            .truncated(let path, _), .unsupported(let path, _), .tooLarge(let path, _, _, _),
            .truncatedData(let path, _), .corrupt(let path, _), .overPixelLimit(let path, _, _),
            .cancelled(let path):
            return path
        }
    }

    /// "NAME: REASON", the file's name and why it could not be read.
    public var description: String {
        "\(Self.fileName(of: subjectPath)): \(reason)"
    }

    /// Why the image could not be read, in plain words without the file's name, such as
    /// "not an image (unknown file signature)".
    public var reason: String {
        switch self {
        case .fileMissing:
            return "no such file"
        case .unreadable(_, let reason):
            return "cannot read (\(reason))"
        case .notAnImage:
            return "not an image (unknown file signature)"
        case .truncated(_, let format):
            return "the file is truncated (\(format.displayName) header cut short)"
        case .unsupported(_, let reason):
            return "unsupported image (\(reason))"
        case .tooLarge(_, let width, let height, let limit):
            if width > limit || height > limit {
                return "too large (\(width) x \(height) px; the limit is \(limit) per side)"
            }
            return "too large (\(width) x \(height) px; the limit is \(limit) pixels for this image)"
        case .truncatedData(_, let format):
            return "the file is truncated (\(format.displayName) data ends early)"
        case .corrupt(_, let reason):
            return "corrupt image data (\(reason))"
        case .overPixelLimit(_, let pixels, let limit):
            return "too large to show: \(Self.megapixels(pixels)), the limit is \(Self.megapixels(limit))"
        case .cancelled:
            return "cancelled"
        }
    }

    /// "900 MP", "12.2 MP", "0.3 MP": whole megapixels from 100 on, one decimal below.
    static func megapixels(_ pixels: Int) -> String {
        let value = Double(pixels) / 1_000_000
        if value >= 100 || value == value.rounded() { return "\(Int(value.rounded())) MP" }
        return String(format: "%.1f MP", value)
    }

    /// The last component of a path, ignoring trailing slashes ("a/b.png" gives "b.png").
    private static func fileName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        if let slash = trimmed.lastIndex(of: "/"), trimmed.index(after: slash) != trimmed.endIndex {
            return String(trimmed[trimmed.index(after: slash)...])
        }
        return String(trimmed)
    }
}
